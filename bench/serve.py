#!/usr/bin/env python3
"""Loopback HTTP/1.1 server for the benchmark corpus.

Loads every *.json file of the corpus directory into memory, binds 127.0.0.1 (only) on a
free port, prints that port on stdout (one line, flushed) and serves GET /<file name> with
Content-Length and keep-alive until it is killed (SIGTERM/SIGINT end it cleanly).

Usage: serve.py [CORPUS_DIR]   (default: bench/corpus beside this script)
"""
import http.server
import os
import signal
import sys

HOST = "127.0.0.1"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    files = {}
    for name in sorted(os.listdir(root)):
        if name.endswith(".json"):
            with open(os.path.join(root, name), "rb") as f:
                files["/" + name] = f.read()
    if not files:
        print(f"serve.py: no .json files in {root}", file=sys.stderr)
        return 1

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the connection stays open between requests

        def do_GET(self):
            body = files.get(self.path.split("?", 1)[0])
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json; charset=UTF-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, fmt, *args):  # no per-request logging
            pass

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 256  # the default backlog of 5 drops SYNs when 32 clients connect at once

    server = Server((HOST, 0), Handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
