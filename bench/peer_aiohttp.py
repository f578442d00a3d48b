#!/usr/bin/env python3
"""The Python peer of the benchmarks: fetch + map + JSON Lines, as Tributary's `json` source does.

The fastest ordinary Python way to do the job: asyncio, one aiohttp.ClientSession whose
TCPConnector allows --concurrency connections in all and --per-host to one host (the same
numbers as Tributary's `http.concurrency` and `http.per_host`), a semaphore of --concurrency
requests in flight, orjson.loads for each body, direct indexing into the documents, and one
orjson.dumps per item. Items are written to stdout as compact JSON Lines as soon as their page
has arrived (page order is not kept; the benchmarks compare sorted outputs).

The item shape and the omission rules are those of bench/map.jq and the old thread-pool peer,
which follow Sources/TributaryPlugins/Sources/JSON/JSONSource.swift with the benchmark config:
  id        "<source>:" + id.videoId (a page fails without it)
  title     snippet.title, trimmed; when empty: the first 80 characters of the summary, then the id
  summary   snippet.description, trimmed, left out when empty
  image     snippet.thumbnails.high.url, trimmed, kept only when it starts with http:// or https://
  author    snippet.channelTitle, trimmed, left out when empty
  published snippet.publishedAt as RFC 3339 UTC (YYYY-MM-DDTHH:MM:SSZ), left out when absent
  fetched   the run's start time, UTC
  data      channel_id (snippet.channelId), live_broadcast_content (snippet.liveBroadcastContent),
            each left out when null or absent; data left out when empty
Text fields that hold numbers are written as their text. Ids already written in this run are
dropped, as Tributary drops repeated ids within a run. The fields are read by direct indexing
(doc["items"], el["snippet"]["title"], ...), so a key missing from a page fails that page where
Tributary would leave the field out; every page of the bench corpora has every key.

Usage: peer_aiohttp.py URL_LIST_FILE [--concurrency N] [--per-host N] [--source NAME]
       (URL_LIST_FILE: one URL a line)
Exit status: 0 when every URL answered 200 with a JSON document, 1 otherwise.
"""
import argparse
import asyncio
import datetime as dt
import sys

import aiohttp
import orjson

def text(v):
    """A text field: a string trimmed (None when empty), or a number as its text."""
    if v.__class__ is str:
        # Fast path: nothing to trim (almost every value).
        if v and not v[0].isspace() and not v[-1].isspace():
            return v
        v = v.strip()
        return v or None
    if v is None or v is True or v is False:
        return None
    if isinstance(v, (int, float)):
        return str(v)
    return None


def rfc3339(v):
    """A date as RFC 3339 UTC, or None. The corpus writes YYYY-MM-DDTHH:MM:SSZ, kept as it is
    once fromisoformat has accepted it; any other form is parsed and rewritten."""
    if v.__class__ is not str:
        return None
    try:
        d = dt.datetime.fromisoformat(v)
    except ValueError:
        return None
    if len(v) == 20 and v[19] == "Z":
        return v
    if d.tzinfo is None:
        d = d.replace(tzinfo=dt.timezone.utc)
    return d.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def map_page(body, source, fetched, seen):
    """One page's items as a list of JSON Lines (bytes), repeated ids left out."""
    doc = orjson.loads(body)
    prefix = source + ":"
    dumps = orjson.dumps
    out = []
    for el in doc["items"]:
        sn = el["snippet"]
        native = text(el["id"]["videoId"])
        if native is None:
            raise ValueError("item without id")
        iid = prefix + native
        if iid in seen:
            continue
        seen.add(iid)
        title = text(sn["title"])
        summary = text(sn["description"])
        item = {"id": iid, "source": source, "type": "json", "kind": "entry",
                "title": title or (summary[:80] if summary else native)}
        if summary is not None:
            item["summary"] = summary
        image = text(sn["thumbnails"]["high"]["url"])
        if image is not None and (image.startswith("https://") or image.startswith("http://")):
            item["image"] = image
        author = text(sn["channelTitle"])
        if author is not None:
            item["author"] = author
        published = rfc3339(sn["publishedAt"])
        if published is not None:
            item["published"] = published
        item["fetched"] = fetched
        data = {}
        v = sn["channelId"]
        if v is not None:
            data["channel_id"] = v
        v = sn["liveBroadcastContent"]
        if v is not None:
            data["live_broadcast_content"] = v
        if data:
            item["data"] = data
        out.append(dumps(item))
    return out


async def run(urls, concurrency, per_host, source):
    fetched = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    seen = set()
    write = sys.stdout.buffer.write
    sem = asyncio.Semaphore(concurrency)
    failures = []
    connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=per_host)
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout,
                                     headers={"Accept": "application/json"}) as session:
        async def one(url):
            async with sem:
                try:
                    async with session.get(url) as resp:
                        body = await resp.read()
                        if resp.status != 200:
                            raise RuntimeError(f"HTTP {resp.status}")
                    lines = map_page(body, source, fetched, seen)
                except Exception as e:  # noqa: BLE001 - reported, and the exit status says so
                    failures.append(f"GET {url}: {e!r}")
                    return
            if lines:
                write(b"\n".join(lines) + b"\n")

        await asyncio.gather(*(one(u) for u in urls))
    for f in failures[:3]:
        print(f"peer_aiohttp: {f}", file=sys.stderr)
    if failures:
        print(f"peer_aiohttp: {len(failures)} of {len(urls)} URLs failed", file=sys.stderr)
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description="fetch + map + JSON Lines with aiohttp and orjson")
    ap.add_argument("url_list")
    ap.add_argument("--concurrency", type=int, default=32, help="connections and requests in flight (http.concurrency)")
    ap.add_argument("--per-host", type=int, default=None, help="connections to one host (http.per_host); default: --concurrency")
    ap.add_argument("--source", default="bench", help="the source name and id prefix")
    args = ap.parse_args()
    with open(args.url_list) as f:
        urls = [line.strip() for line in f if line.strip()]
    rc = asyncio.run(run(urls, args.concurrency, args.per_host or args.concurrency, args.source))
    sys.stdout.flush()
    return rc


if __name__ == "__main__":
    sys.exit(main())
