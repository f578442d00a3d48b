#!/usr/bin/env python3
"""Deterministic generator of YouTube Data API v3 search.list-like pages for the benchmark.

Writes bench/corpus/page-0001.json ... page-NNNN.json (default 2,000 pages of 50 items,
about 28 KB each, compact as the API writes them with prettyPrint=false). The same seed
always gives byte-identical files. Every videoId is unique across the whole corpus (a run
dedupes item ids, so duplicates would change the item count).

Text content exercises the JSON layer the way real search results do: non-ASCII titles
(Latin accents, CJK, Cyrillic, emoji outside the BMP), HTML entities as the API writes them
(&#39; &amp; &quot;), escaped quotes and backslashes, and newlines/tabs in descriptions.
Every 10th page is written with ensure_ascii (\\uXXXX escapes, surrogate pairs for emoji);
the rest carry raw UTF-8, as the API does.

With --lean (for `bench/run.sh many`: one-item pages of about 570 bytes) the pages keep only
what the benchmark mapping reads, plus `kind` and `nextPageToken`.

Usage: gen_corpus.py [--pages N] [--items N] [--seed S] [--target-bytes B] [--lean] [--width W] [--out DIR]
"""
import argparse
import datetime as dt
import json
import os
import random
import sys

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

WORDS = (
    "swift concurrency async await actor task group tutorial review unboxing live stream "
    "football highlights music video official trailer recipe travel vlog guitar lesson news "
    "podcast episode interview gameplay walkthrough speedrun remix cover acoustic session "
    "explained beginner advanced guide tips tricks 2024 update full match documentary"
).split()

# Non-ASCII and escape-heavy fragments that end up in titles and descriptions.
FLAVOUR = [
    "café", "São Paulo", "Belo Horizonte", "Ñandú", "naïve", "Zürich", "Łódź", "smørrebrød",
    "東京", "日本語の字幕", "北京烤鸭", "한국어", "Привет мир", "Ελληνικά", "עברית", "العربية",
    "🎸", "🔥🔥", "🚀", "😂", "👉 link in bio", "✅", "—", "…", "“quoted”",
    "Rock &amp; Roll", "Don&#39;t stop", "&quot;live&quot;", "\"raw quotes\"", "back\\slash",
    "C:\\Users\\demo", "50% off", "<b>bold</b>", "a/b/c",
]

MIN_DESC = 50  # bytes: search.list snippets always carry some description text

CHANNELS = [
    "Swift Lab", "Café Müller Music", "東京 Walker", "Fútbol Total", "Cooking with Ana",
    "Tech Review Hub", "Кухня у Ивана", "Guitar Ünlimited", "The \"Daily\" Show Clips",
    "Data\\Engineering", "Retro Gamer 🎮", "Viagem & Cia", "Nightly Lo-Fi", "Ciência Hoje",
]


def video_id(rng, seen):
    while True:
        v = "".join(rng.choice(ALPHABET) for _ in range(11))
        if v not in seen:
            seen.add(v)
            return v


def phrase(rng, n_words, flavour_p=0.35):
    out = []
    for _ in range(n_words):
        if rng.random() < flavour_p:
            out.append(rng.choice(FLAVOUR))
        else:
            out.append(rng.choice(WORDS))
    return " ".join(out)


def description(rng, n_words):
    text = phrase(rng, n_words, 0.2)
    # A few line breaks and tabs, as snippet descriptions often carry them.
    parts = text.split(" ")
    for _ in range(rng.randint(0, 3)):
        i = rng.randrange(len(parts))
        parts[i] = parts[i] + rng.choice(["\n", "\n\n", "\t"])
    return " ".join(parts).replace("\n ", "\n").replace("\t ", "\t")


def make_item(rng, seen, channels, when, lean=False):
    vid = video_id(rng, seen)
    ch_id, ch_title = rng.choice(channels)
    ts = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    title = phrase(rng, rng.randint(3, 8))
    if rng.random() < 0.5:
        title = title[0].upper() + title[1:]
    thumbs = {}
    for name, w, h in (("default", 120, 90), ("medium", 320, 180), ("high", 480, 360)):
        if lean and name != "high":
            continue
        fname = {"default": "default.jpg", "medium": "mqdefault.jpg", "high": "hqdefault.jpg"}[name]
        thumbs[name] = {"url": f"https://i.ytimg.com/vi/{vid}/{fname}"}
    # The real API also gives each item "kind" and "etag"; left out (with thumbnail
    # width/height) so that a 50-item page stays near 28 KB.
    return {
        "id": {"kind": "youtube#video", "videoId": vid},
        "snippet": {
            "publishedAt": ts,
            "channelId": ch_id,
            "title": title,
            "description": None,  # filled in by the page builder to hit the size target
            "thumbnails": thumbs,
            "channelTitle": ch_title,
            "liveBroadcastContent": rng.choices(["none", "live", "upcoming"], [90, 6, 4])[0],
            "publishTime": ts,
        },
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=2000)
    ap.add_argument("--items", type=int, default=50)
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--target-bytes", type=int, default=28 * 1024, help="approximate page size")
    ap.add_argument("--lean", action="store_true",
                    help="small pages: only the high thumbnail, no page-level etag/regionCode/pageInfo, no publishTime")
    ap.add_argument("--width", type=int, default=4, help="digits in the file names (page-0001.json)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus"))
    args = ap.parse_args()

    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    seen = set()
    channels = [("UC" + "".join(rng.choice(ALPHABET) for _ in range(22)), t) for t in CHANNELS]
    start = dt.datetime(2024, 6, 1, 12, 0, 0, tzinfo=dt.timezone.utc)
    total = 0
    for p in range(1, args.pages + 1):
        items = []
        for i in range(args.items):
            when = start - dt.timedelta(seconds=rng.randint(0, 3 * 365 * 86400))
            items.append(make_item(rng, seen, channels, when, args.lean))
        if args.lean:
            for it in items:
                del it["snippet"]["publishTime"]
        page = {
            "kind": "youtube#searchListResponse",
            "etag": "".join(rng.choice(ALPHABET) for _ in range(27)),
            "nextPageToken": "C" + "".join(rng.choice(ALPHABET) for _ in range(5)),
            "regionCode": "US",
            "pageInfo": {"totalResults": 1000000, "resultsPerPage": args.items},
            "items": items,
        }
        if args.lean:
            for k in ("etag", "regionCode", "pageInfo"):
                del page[k]
        ascii_only = (p % 10 == 0)
        # Size everything but the descriptions, then give the descriptions the remaining budget.
        for it in items:
            it["snippet"]["description"] = ""
        base = len(json.dumps(page, separators=(",", ":"), ensure_ascii=ascii_only).encode("utf-8"))
        budget = max(0, args.target_bytes - base) // args.items
        for it in items:
            d = ""
            want = max(MIN_DESC, budget + rng.randint(-40, 40))
            while True:
                cand = description(rng, 6)
                d = (d + " " + cand).strip() if d else cand
                if len(json.dumps(d, ensure_ascii=ascii_only).encode("utf-8")) >= want:
                    break
            # Trim to the budget on a character boundary, never leaving edge whitespace.
            while len(json.dumps(d, ensure_ascii=ascii_only).encode("utf-8")) > want + 8 and len(d) > MIN_DESC // 2:
                d = d[:-1]
            it["snippet"]["description"] = d.strip()
        data = json.dumps(page, separators=(",", ":"), ensure_ascii=ascii_only).encode("utf-8")
        with open(os.path.join(args.out, f"page-{p:0{args.width}d}.json"), "wb") as f:
            f.write(data)
        total += len(data)
    print(f"wrote {args.pages} pages, {args.pages * args.items} items, {total} bytes "
          f"({total / args.pages / 1024:.1f} KiB/page avg) to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
