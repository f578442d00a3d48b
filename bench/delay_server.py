#!/usr/bin/env python3
"""Loopback HTTP/1.1 server that answers every GET after a fixed delay, for `bench/run.sh fetch`.

GET /f/<n>.json answers, after --delay seconds, 200 with a JSON document of about --size
bytes: one search.list-like item whose videoId is built from <n> (so every URL gives a different
item), and a "padding" string that brings the body to the size. Keep-alive, Content-Length,
requests on one connection answered in order. Anything else is 404 (after the same delay).

Built to cost far less than the clients it serves: an asyncio Protocol (on uvloop when it is
installed), no per-request coroutine (the answer is a loop.call_later), bodies built once per
path. Its own CPU time is what `run.sh fetch` reads from /proc/<pid>/stat to show that it is
not the bottleneck.

Binds 127.0.0.1 on a free port (or --port), prints the port on stdout (one line, flushed), and
runs until SIGTERM or SIGINT.

Usage: delay_server.py [--delay 0.1] [--size 25600] [--port 0]
"""
import argparse
import asyncio
import signal
import sys

try:
    import uvloop
except ImportError:  # plain asyncio: slower, still far below the clients' cost
    uvloop = None

import orjson


def make_body(n, size):
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


class Server:
    def __init__(self, delay, size):
        self.delay = delay
        self.size = size
        self.cache = {}
        self.not_found = (b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n"
                          b"Content-Length: 10\r\n\r\nnot found\n")

    def response(self, path):
        r = self.cache.get(path)
        if r is None:
            r = self.not_found
            p = path.split(b"?", 1)[0]
            if p.startswith(b"/f/") and p.endswith(b".json") and p[3:-5].isdigit():
                body = make_body(int(p[3:-5]), self.size)
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
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()

    if uvloop is not None:
        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    server = Server(args.delay, args.size)

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
