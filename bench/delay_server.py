#!/usr/bin/env python3
"""Loopback HTTP/1.1 server that answers every GET after a fixed delay, for `bench/run.sh fetch`.

GET /f/<n>.json answers, after --delay seconds, 200 with a JSON document of exactly --size
bytes. With --items 1 (the default): one search.list-like item whose videoId is built from <n>
(so every URL gives a different item), and a "padding" string that brings the body to the size.
With --items K > 1: K search.list-like items (videoIds built from <n> and the item's index, so
all are distinct), their titles and descriptions drawn from bench/gen_corpus.py's words (non-ASCII
text, HTML entities such as &amp; and &#39;, quotes, backslashes, newlines and tabs; every 10th
body written with \\uXXXX escapes), seeded by <n>: the descriptions fill the body, and a "padding"
string of a few bytes makes up the exact size. Keep-alive, Content-Length, requests on one
connection answered in order. Anything else is 404 (after the same delay).

Built to cost far less than the clients it serves: an asyncio Protocol (on uvloop when it is
installed), no per-request coroutine (the answer is a loop.call_later), bodies built once per
path (with --prebuild N, the bodies of /f/1 ... /f/N are built before the port is printed).
Its own CPU time is what `run.sh fetch` reads from /proc/<pid>/stat to show that it is
not the bottleneck.

Binds 127.0.0.1 on a free port (or --port), prints the port on stdout (one line, flushed), and
runs until SIGTERM or SIGINT.

Usage: delay_server.py [--delay 0.1] [--size 25600] [--items 1] [--prebuild 0] [--port 0]
"""
import argparse
import asyncio
import datetime as dt
import json
import os
import random
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_corpus  # noqa: E402  (the words, the flavours and the item shape of the decode corpus)

try:
    import uvloop
except ImportError:  # plain asyncio: slower, still far below the clients' cost
    uvloop = None

import orjson


def make_body(n, size, items=1):
    if items > 1:
        return make_items_body(n, size, items)
    vid = f"f{n:010d}"
    doc = {
        "kind": "youtube#searchListResponse",
        "items": [{
            "id": {"kind": "youtube#video", "videoId": vid},
            "snippet": {
                "publishedAt": "2024-06-01T12:00:00Z",
                "channelId": "UCfetchbench0000000000000",
                "title": f"Fetch benchmark item {n}",
                "description": "One item per URL; the padding below makes the body about 25 KB.",
                "thumbnails": {"high": {"url": f"https://i.ytimg.com/vi/{vid}/hqdefault.jpg"}},
                "channelTitle": "Fetch Bench",
                "liveBroadcastContent": "none",
            },
        }],
        "padding": "",
    }
    base = len(orjson.dumps(doc))
    doc["padding"] = "x" * max(0, size - base)
    return orjson.dumps(doc)


_POOL = None


def _pool():
    """Channels and 4,000 description phrases (gen_corpus.description, with their escaped
    lengths), drawn once: building 1,000 bodies of 45 items stays under a few seconds."""
    global _POOL
    if _POOL is None:
        rng = random.Random(20240601)
        channels = [("UC" + "".join(rng.choice(gen_corpus.ALPHABET) for _ in range(22)), t) for t in gen_corpus.CHANNELS]
        phrases = []
        for _ in range(4000):
            d = gen_corpus.description(rng, 6)
            phrases.append((d, len(json.dumps(d, ensure_ascii=False).encode()) - 2, len(json.dumps(d)) - 2))
        _POOL = channels, phrases
    return _POOL


def _dumps(doc, ascii_only):
    if ascii_only:
        return json.dumps(doc, separators=(",", ":"), ensure_ascii=True).encode()
    return orjson.dumps(doc)


def _escaped_len(text, ascii_only):
    return len(json.dumps(text, ensure_ascii=ascii_only).encode()) - 2


def make_items_body(n, size, count):
    """`count` search.list-like items for URL n, exactly `size` bytes (with a few bytes of
    padding); deterministic: the same n, size and count give the same bytes."""
    channels, phrases = _pool()
    rng = random.Random(n * 1000003 + count)
    ascii_only = n % 10 == 0
    start = dt.datetime(2024, 6, 1, 12, 0, 0, tzinfo=dt.timezone.utc)
    items = []
    for i in range(count):
        ts = (start - dt.timedelta(seconds=rng.randint(0, 3 * 365 * 86400))).strftime("%Y-%m-%dT%H:%M:%SZ")
        vid = f"f{n:06d}x{i:03d}"  # distinct across every URL and index
        ch_id, ch_title = rng.choice(channels)
        title = gen_corpus.phrase(rng, rng.randint(3, 8))
        if rng.random() < 0.5:
            title = title[0].upper() + title[1:]
        items.append({
            "id": {"kind": "youtube#video", "videoId": vid},
            "snippet": {
                "publishedAt": ts,
                "channelId": ch_id,
                "title": title,
                "description": "",
                "thumbnails": {"high": {"url": f"https://i.ytimg.com/vi/{vid}/hqdefault.jpg"}},
                "channelTitle": ch_title,
                "liveBroadcastContent": rng.choices(["none", "live", "upcoming"], [90, 6, 4])[0],
                "publishTime": ts,
            },
        })
    doc = {"kind": "youtube#searchListResponse", "etag": f"fetchbench{n:017d}", "regionCode": "US",
           "pageInfo": {"totalResults": 1000000, "resultsPerPage": count}, "items": items, "padding": ""}
    base = len(_dumps(doc, ascii_only))
    if base + count * gen_corpus.MIN_DESC > size:
        raise SystemExit(f"delay_server.py: --size {size} is too small for {count} items (at least {base + count * gen_corpus.MIN_DESC})")
    used = base
    for i, it in enumerate(items):
        # Each description gets an even share of what is left (+-40 bytes), the last one the
        # rest, less a margin that the padding makes up.
        left = count - i
        share = (size - used - 16) // left
        want = max(gen_corpus.MIN_DESC, share if left == 1 else share + rng.randint(-40, 40))
        parts, dlen = [], -1  # dlen: the escaped length of " ".join(parts)
        while True:
            text, utf8_len, ascii_len = rng.choice(phrases)
            plen = ascii_len if ascii_only else utf8_len
            if parts and dlen + 1 + plen > want:
                break
            parts.append(text)
            dlen += 1 + plen
        d = " ".join(parts).strip()
        while _escaped_len(d, ascii_only) > want and len(d) > gen_corpus.MIN_DESC // 2:
            d = d[:-1]  # a first phrase longer than the budget: cut it
        d = d.strip()
        it["snippet"]["description"] = d
        used += _escaped_len(d, ascii_only)
    body = _dumps(doc, ascii_only)
    if len(body) > size:
        raise SystemExit(f"delay_server.py: body {n} is {len(body)} bytes, over --size {size}")
    doc["padding"] = "x" * (size - len(body))
    body = _dumps(doc, ascii_only)
    assert len(body) == size, (n, len(body), size)
    return body


class Server:
    def __init__(self, delay, size, items=1):
        self.delay = delay
        self.size = size
        self.items = items
        self.prebuilt = {}
        self.cache = {}
        self.not_found = (b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n"
                          b"Content-Length: 10\r\n\r\nnot found\n")

    def response(self, path):
        r = self.cache.get(path)
        if r is None:
            r = self.not_found
            p = path.split(b"?", 1)[0]
            if p.startswith(b"/f/") and p.endswith(b".json") and p[3:-5].isdigit():
                n = int(p[3:-5])
                body = self.prebuilt.get(n) or make_body(n, self.size, self.items)
                r = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                     + str(len(body)).encode() + b"\r\n\r\n" + body)
            if len(self.cache) < 100_000:
                self.cache[path] = r
        return r


class Conn(asyncio.Protocol):
    def __init__(self, server, loop):
        self.server = server
        self.loop = loop
        self.buf = b""
        self.transport = None
        self.last = 0.0  # when the previous answer on this connection goes out (answers stay in order)

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        self.buf += data
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buf) > 65536:
                    self.transport.close()
                return
            head = self.buf[:end]
            self.buf = self.buf[end + 4:]
            line = head.split(b"\r\n", 1)[0].split(b" ")
            path = line[1] if len(line) >= 2 else b"/"
            when = max(self.loop.time() + self.server.delay, self.last)
            self.last = when
            self.loop.call_at(when, self.send, self.server.response(path))

    def send(self, payload):
        t = self.transport
        if t is not None and not t.is_closing():  # the client may have gone meanwhile
            t.write(payload)

    def connection_lost(self, exc):
        self.transport = None


def main():
    ap = argparse.ArgumentParser(description="loopback HTTP server with a fixed answer delay")
    ap.add_argument("--delay", type=float, default=0.1, help="seconds before each answer")
    ap.add_argument("--size", type=int, default=25600, help="body size in bytes")
    ap.add_argument("--items", type=int, default=1, help="items per body (1: one item and padding)")
    ap.add_argument("--prebuild", type=int, default=0, help="build the bodies of /f/1 ... /f/N before serving")
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    if args.items < 1:
        ap.error("--items must be at least 1")

    if uvloop is not None:
        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    server = Server(args.delay, args.size, args.items)
    server.prebuilt = {n: make_body(n, args.size, args.items) for n in range(1, args.prebuild + 1)}

    srv = loop.run_until_complete(loop.create_server(lambda: Conn(server, loop), "127.0.0.1", args.port, backlog=4096))
    print(srv.sockets[0].getsockname()[1], flush=True)
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, loop.stop)
    try:
        loop.run_forever()
    finally:
        srv.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
