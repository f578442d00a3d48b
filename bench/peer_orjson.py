#!/usr/bin/env python3
"""The Python peer of the benchmark: fetch + map + JSON Lines, as Tributary's `json` source does.

Fetches every URL with a ThreadPoolExecutor of 32 threads, each holding one keep-alive
http.client connection, parses each page with orjson.loads, maps every element of `items`
to the item shape of SPEC.md section 4 with the same field mapping as the benchmark config
(bench/run.sh), drops ids already seen in this run, and writes compact JSON Lines to stdout
with orjson.dumps, in URL order.

The mapping follows Sources/TributaryPlugins/Sources/JSON/JSONSource.swift: text fields are
strings (or numbers, stringified), trimmed, and omitted when empty; the title falls back to
the first 80 characters of the summary, then the native id; the image must be an absolute
http(s) URL; `published` is parsed and rewritten as RFC 3339 UTC; data fields are copied as
any JSON value and omitted when null or absent.

Usage: peer_orjson.py URL_LIST_FILE   (one URL a line)   [--source NAME] [--threads N]
"""
import argparse
import datetime as dt
import http.client
import sys
import threading
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import orjson

_local = threading.local()


def fetch(url):
    u = urllib.parse.urlsplit(url)
    conn = getattr(_local, "conn", None)
    if conn is None:
        conn = _local.conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=20)
    path = u.path + ("?" + u.query if u.query else "")
    for attempt in (1, 2):
        try:
            conn.request("GET", path, headers={"Accept": "application/json"})
            resp = conn.getresponse()
            body = resp.read()
            if resp.status != 200:
                raise RuntimeError(f"GET {url}: HTTP {resp.status}")
            return body
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            conn.close()  # keep-alive connection dropped by the server: reconnect once
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def text(v):
    if isinstance(v, str):
        t = v.strip()
        return t or None
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return str(v)
    return None


def rfc3339(v):
    if not isinstance(v, str):
        return None
    try:
        d = dt.datetime.fromisoformat(v)
    except ValueError:
        return None
    if d.tzinfo is None:
        d = d.replace(tzinfo=dt.timezone.utc)
    return d.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def get(d, *keys):
    for k in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def map_page(body, source, fetched):
    doc = orjson.loads(body)
    out = []
    for el in doc.get("items") or []:
        sn = el.get("snippet") or {}
        title = text(sn.get("title"))
        summary = text(sn.get("description"))
        native = text(get(el, "id", "videoId"))
        if native is None:
            raise ValueError("item without id")
        item = {"id": f"{source}:{native}", "source": source, "type": "json", "kind": "entry",
                "title": title or (summary[:80] if summary else native)}
        if summary is not None:
            item["summary"] = summary
        image = text(get(sn, "thumbnails", "high", "url"))
        if image and (image.startswith("http://") or image.startswith("https://")):
            item["image"] = image
        author = text(sn.get("channelTitle"))
        if author is not None:
            item["author"] = author
        published = rfc3339(sn.get("publishedAt"))
        if published is not None:
            item["published"] = published
        item["fetched"] = fetched
        data = {}
        v = sn.get("channelId")
        if v is not None:
            data["channel_id"] = v
        v = sn.get("liveBroadcastContent")
        if v is not None:
            data["live_broadcast_content"] = v
        if data:
            item["data"] = data
        out.append(item)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url_list")
    ap.add_argument("--source", default="bench")
    ap.add_argument("--threads", type=int, default=32)
    args = ap.parse_args()
    with open(args.url_list) as f:
        urls = [line.strip() for line in f if line.strip()]
    fetched = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    seen = set()
    write = sys.stdout.buffer.write
    with ThreadPoolExecutor(args.threads) as pool:
        for items in pool.map(lambda u: map_page(fetch(u), args.source, fetched), urls):
            lines = []
            for it in items:
                if it["id"] in seen:
                    continue
                seen.add(it["id"])
                lines.append(orjson.dumps(it))
            if lines:
                write(b"\n".join(lines) + b"\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
