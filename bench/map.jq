# The jq peer's mapping: one search.list page in, one item object per element of .items out,
# the same shape and rules as Tributary's `json` source with the benchmark config (run.sh):
# text fields trimmed and omitted when empty, title falling back to the summary's first 80
# characters then the native id, image kept only if absolute http(s), published rewritten as
# RFC 3339 UTC, data fields copied when not null. $source and $fetched come from --arg.
# (Not done here, unlike Tributary and the orjson script: dropping repeated ids within a run,
# and the hashed-title id fallback. The corpus has unique ids, so the output is the same.)
def ws: . == " " or . == "\n" or . == "\t" or . == "\r";
def text:
  if type == "string" then
    (if (.[0:1] | ws) or (.[-1:] | ws) then sub("^\\s+"; "") | sub("\\s+$"; "") else . end)
    | if . == "" then null else . end
  elif type == "number" then tostring
  else null end;
def drop_nulls: with_entries(select(.value != null));
.items[]?
| .snippet as $s
| ($s.title | text) as $title
| ($s.description | text) as $summary
| (.id.videoId | text) as $native
| ($s.thumbnails.high.url | text) as $image
| {
    id: ($source + ":" + $native),
    source: $source,
    type: "json",
    kind: "entry",
    title: ($title // ($summary // "" | .[0:80] | if . == "" then null else . end) // $native),
    summary: $summary,
    image: (if $image != null and ($image | startswith("http://") or startswith("https://")) then $image else null end),
    author: ($s.channelTitle | text),
    published: ($s.publishedAt | if type == "string" then (fromdateiso8601? // null | if . then todateiso8601 else null end) else null end),
    fetched: $fetched,
    data: ({channel_id: $s.channelId, live_broadcast_content: $s.liveBroadcastContent} | drop_nulls)
  }
| if (.data | length) == 0 then del(.data) else . end
| drop_nulls
