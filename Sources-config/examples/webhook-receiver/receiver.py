#!/usr/bin/env python3
"""A webhook receiver for Tributary's webhook sink (Docs/sinks/webhook.md), for trying it out.

Listens on 127.0.0.1 (port 8787, or the one given; 0 picks a free one) and prints
`listening on http://127.0.0.1:<port>/hook` first. For each POST it checks
X-Tributary-Signature (HMAC-SHA256 of the raw body, keyed with TRIBUTARY_WEBHOOK_SECRET, default
`change-me`, as in webhook.json) and answers 401 when it does not match. A request whose
Idempotency-Key it already accepted is answered 200 and skipped. Otherwise it prints one line per
item, `<id>  <title>`, and answers 204. Stop it with Ctrl-C.
"""
import hashlib
import hmac
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = os.environ.get("TRIBUTARY_WEBHOOK_SECRET", "change-me").encode()
seen_keys = set()


class Hook(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        expected = "sha256=" + hmac.new(SECRET, body, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, self.headers.get("X-Tributary-Signature", "")):
            self.answer(401)
            return
        key = self.headers.get("Idempotency-Key", "")
        if key in seen_keys:
            self.answer(200)
            return
        if self.headers.get("Content-Type", "").startswith("application/json"):
            items = json.loads(body)
        else:
            items = [json.loads(line) for line in body.decode("utf-8").splitlines() if line]
        for item in items:
            print(f"{item['id']}  {item['title']}", flush=True)
        seen_keys.add(key)
        self.answer(204)

    def answer(self, status):
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format, *args):
        pass  # one line per item on stdout, nothing else


def main() -> int:
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8787
    server = ThreadingHTTPServer(("127.0.0.1", port), Hook)
    print(f"listening on http://127.0.0.1:{server.server_port}/hook", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
