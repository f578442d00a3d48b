#!/usr/bin/env python3
"""The soak: `tributary watch` polling many sources against a loopback server for minutes, with
its memory, open files and threads sampled from /proc, and every item checked at the end.

    python3 bench/soak.py                       # 10.5 minutes, 300 sources (bench/run.sh soak)
    python3 bench/soak.py --seconds 60 --json report.json   # what SoakTests runs

The server (a ThreadingHTTPServer on 127.0.0.1, HTTP/1.1 keep-alive) gives each of `--sources`
`json` sources a feed of its latest items: source n gains item k at start + phase(n) +
k x `--new-every`, the feed shows the newest `--window` of them, and no item is born in the last
`--settle` seconds, so every source is polled after its last one. `watch` polls every source
every `--interval` (jitter 10 %), writes the items to a jsonl file, keeps its state in a SQLite
file and serves /metrics, which the soak scrapes at every sample. Every `--sample` seconds it
reads the process's VmRSS and Threads (/proc/PID/status) and its open descriptors
(/proc/PID/fd). At the end it stops `watch` with SIGTERM (exit 143 expected) and checks the
jsonl file: each id once (no duplicate), every item born once (no miss), nothing else.

It prints a Markdown report (and writes it to `--out`, default bench/results/soak-latest.md),
`--json FILE` writes the numbers for a test, and it exits 1 when an item is duplicated or
missed, when watch died or did not stop cleanly, or when the open descriptors or threads grew
between the first and the last samples after `--warmup` (the median of the first three
against the median of the last three, more than `--fd-slack` / `--thread-slack`).
Everything it starts is stopped and its folder removed at exit (`--keep` keeps the folder).
"""
import argparse
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    env = os.environ.get
    p.add_argument("--seconds", type=float, default=float(env("SOAK_SECONDS", "630")), help="how long watch runs (SOAK_SECONDS; default 630: 10.5 minutes)")
    p.add_argument("--sources", type=int, default=int(env("SOAK_SOURCES", "300")), help="json sources (SOAK_SOURCES; 300)")
    p.add_argument("--interval", type=float, default=float(env("SOAK_INTERVAL", "5")), help="each source's interval, seconds (SOAK_INTERVAL; 5)")
    p.add_argument("--new-every", type=float, default=float(env("SOAK_NEW_EVERY", "20")), help="seconds between two new items of a source (20)")
    p.add_argument("--window", type=int, default=10, help="items a feed shows (the newest; 10)")
    p.add_argument("--sample", type=float, default=float(env("SOAK_SAMPLE", "5")), help="seconds between samples (SOAK_SAMPLE; 5)")
    p.add_argument("--warmup", type=float, default=None, help="seconds before the samples that count (default: 60, or a quarter of --seconds if shorter)")
    p.add_argument("--settle", type=float, default=None, help="seconds without new items at the end (default: 3 x --interval + 5)")
    p.add_argument("--fd-slack", type=int, default=2, help="open descriptors the last samples may have over the first (2)")
    p.add_argument("--thread-slack", type=int, default=1, help="threads the last samples may have over the first (1)")
    p.add_argument("--bin", default=env("TRIBUTARY_BIN") or os.path.join(ROOT, ".build/release/tributary"), help="the binary (TRIBUTARY_BIN)")
    p.add_argument("--out", default=os.path.join(HERE, "results", "soak-latest.md"), help="the Markdown report ('' for none)")
    p.add_argument("--json", default=None, help="write the numbers as JSON to this file")
    p.add_argument("--keep", action="store_true", help="keep the scratch folder (config, log, jsonl, state)")
    a = p.parse_args()
    if a.warmup is None:
        a.warmup = min(60.0, a.seconds / 4)
    if a.settle is None:
        a.settle = 3 * a.interval + 5
    if a.sources < 1 or a.seconds <= a.settle + a.warmup or a.interval <= 0 or a.sample <= 0:
        p.error("need --sources >= 1, --seconds > --warmup + --settle, positive --interval and --sample")
    if not os.access(a.bin, os.X_OK):
        p.error(f"no tributary binary at {a.bin} (make release, or TRIBUTARY_BIN=)")
    return a


class Feeds:
    """When each item is born; what a feed shows at a time."""

    def __init__(self, sources, new_every, window, start, stop):
        self.sources, self.new_every, self.window, self.start, self.stop = sources, new_every, window, start, stop
        self.requests = 0
        self.lock = threading.Lock()

    def phase(self, n):
        return self.new_every * n / self.sources

    def born(self, n, now):
        """How many items source n has at `now` (items 0 ..< born)."""
        t = min(now, self.stop) - self.start - self.phase(n)
        return 0 if t < 0 else int(t // self.new_every) + 1

    def page(self, n, now):
        count = self.born(n, now)
        items = [{"id": f"s{n}-{k}", "title": f"item {k} of source {n}"} for k in range(max(0, count - self.window), count)]
        return json.dumps({"items": items[::-1]}).encode()

    def expected(self):
        return {f"soak:s{n}-{k}" for n in range(self.sources) for k in range(self.born(n, self.stop))}


def serve(feeds):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            with feeds.lock:
                feeds.requests += 1
            name = self.path.rsplit("/", 1)[-1]
            if not (name.startswith("s") and name.endswith(".json") and name[1:-5].isdigit() and int(name[1:-5]) < feeds.sources):
                self.send_error(404)
                return
            body = feeds.page(int(name[1:-5]), time.time())
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 256

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sample(pid, metrics_port, t0):
    s = {"t": round(time.time() - t0, 1)}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key == "VmRSS":
                    s["rss_kib"] = int(value.split()[0])
                elif key == "Threads":
                    s["threads"] = int(value)
        s["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
        names = {}
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{task}/comm") as f:
                    name = f.read().strip()
                names[name] = names.get(name, 0) + 1
            except FileNotFoundError:
                pass
        s["thread_names"] = names
    except (FileNotFoundError, ProcessLookupError):
        return None
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as r:
            s["metrics_ok"] = r.status == 200 and b"tributary_" in r.read()
    except OSError:
        s["metrics_ok"] = False
    return s


def median_of(samples, key):
    return statistics.median(x[key] for x in samples)


def main():
    a = parse_args()
    work = tempfile.mkdtemp(prefix="tributary-soak-")
    proc = None
    server = None
    try:
        start = time.time() + 2
        feeds = Feeds(a.sources, a.new_every, a.window, start, start + a.seconds - a.settle)
        server = serve(feeds)
        port = server.server_address[1]
        metrics_port = free_port()
        config = {
            "state": {"path": os.path.join(work, "state.sqlite")},
            "metrics": {"listen": f"127.0.0.1:{metrics_port}"},
            "defaults": {"interval": f"{a.interval:g}s"},
            "sources": [{"name": f"s{n}", "type": "json", "url": f"http://127.0.0.1:{port}/s{n}.json", "id_prefix": "soak",
                         "items": "items", "fields": {"id": "id", "title": "title"}} for n in range(a.sources)],
            "sinks": [{"type": "jsonl", "path": os.path.join(work, "items.jsonl")}],
        }
        with open(os.path.join(work, "tributary.json"), "w") as f:
            json.dump(config, f, indent=1)
        log = open(os.path.join(work, "watch.log"), "wb")
        while time.time() < start:
            time.sleep(0.05)
        t0 = time.time()
        proc = subprocess.Popen([a.bin, "watch", "-c", os.path.join(work, "tributary.json")], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=log, env=dict(os.environ, XDG_STATE_HOME=os.path.join(work, "xdg")))
        samples = []
        next_sample = t0 + min(a.sample, 2)
        end = t0 + a.seconds
        while time.time() < end and proc.poll() is None:
            time.sleep(max(0, min(next_sample, end) - time.time()))
            if time.time() >= next_sample:
                s = sample(proc.pid, metrics_port, t0)
                if s:
                    samples.append(s)
                next_sample += a.sample
        died = proc.poll()
        final = sample(proc.pid, metrics_port, t0) if died is None else None
        if final:
            samples.append(final)
        if died is None:
            proc.send_signal(signal.SIGTERM)
            try:
                status = proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                status = "still running 60 s after SIGTERM (killed)"
        else:
            status = f"died early with {died}"
        wall = time.time() - t0
        log.close()

        ids, lines, bad = [], 0, 0
        path = os.path.join(work, "items.jsonl")
        if os.path.exists(path):
            with open(path, "rb") as f:
                for line in f:
                    lines += 1
                    try:
                        ids.append(json.loads(line)["id"])
                    except (ValueError, KeyError):
                        bad += 1
        expected = feeds.expected()
        seen = set(ids)
        duplicates = len(ids) - len(seen)
        misses = sorted(expected - seen)
        extra = sorted(seen - expected)
        with open(os.path.join(work, "watch.log"), errors="replace") as f:
            watch_log = f.read()
        failed_runs = sum(1 for l in watch_log.splitlines() if "  failed:" in l)

        counted = [s for s in samples if s["t"] >= a.warmup]
        first, last = counted[:3], counted[-3:]
        report = {
            "seconds": round(wall, 1), "sources": a.sources, "interval": a.interval, "warmup": a.warmup, "sample_every": a.sample,
            "requests": feeds.requests, "expected_items": len(expected), "lines": lines, "unreadable_lines": bad,
            "duplicates": duplicates, "misses": len(misses), "missed_examples": misses[:10], "unexpected": len(extra),
            "failed_source_runs": failed_runs, "exit_status": status, "metrics_scrapes_failed": sum(1 for s in samples if not s.get("metrics_ok")),
            "samples": samples, "counted_samples": len(counted),
        }
        problems = []
        if len(counted) >= 2:
            for key, slack in (("fds", a.fd_slack), ("threads", a.thread_slack)):
                report[f"{key}_first"], report[f"{key}_last"] = median_of(first, key), median_of(last, key)
                report[f"{key}_max"] = max(s[key] for s in counted)
                if report[f"{key}_last"] > report[f"{key}_first"] + slack:
                    problems.append(f"{key} grew from {report[f'{key}_first']:g} to {report[f'{key}_last']:g} (first and last three samples after the warm-up)")
            before, after = counted[0]["thread_names"], counted[-1]["thread_names"]
            report["threads_by_name_first"], report["threads_by_name_last"] = before, after
            report["threads_changed"] = {n: after.get(n, 0) - before.get(n, 0) for n in set(before) | set(after) if after.get(n, 0) != before.get(n, 0)}
            report["rss_first_kib"], report["rss_last_kib"] = median_of(first, "rss_kib"), median_of(last, "rss_kib")
            report["rss_max_kib"] = max(s["rss_kib"] for s in counted)
        else:
            problems.append(f"only {len(counted)} samples after the warm-up")
        if status != 143:
            problems.append(f"watch: {status}, expected exit 143 after SIGTERM")
        if duplicates:
            problems.append(f"{duplicates} duplicate lines")
        if misses:
            problems.append(f"{len(misses)} items never emitted (e.g. {', '.join(misses[:3])})")
        if extra or bad:
            problems.append(f"{len(extra)} unexpected ids, {bad} unreadable lines")
        report["problems"] = problems
        text = markdown(a, report, t0)
        print(text)
        if a.out:
            os.makedirs(os.path.dirname(a.out), exist_ok=True)
            with open(a.out, "w") as f:
                f.write(text)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(report, f, indent=1)
        return 1 if problems else 0
    finally:
        if proc and proc.poll() is None:
            proc.kill()
            proc.wait()
        if server:
            server.shutdown()
        if a.keep:
            print(f"soak: kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def markdown(a, r, t0):
    load = os.getloadavg()
    out = [f"# soak: tributary watch, {r['sources']} sources every {a.interval:g} s, {r['seconds']:.0f} s",
           "",
           f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime(t0))} UTC, {os.cpu_count()} cores, {platform.release()}, load average at the end {load[0]:.2f}; {a.bin}",
           "",
           "| | first (after warm-up) | last | max |",
           "|---|---|---|---|"]
    if "fds_first" in r:
        out += [f"| RSS MiB | {r['rss_first_kib'] / 1024:.1f} | {r['rss_last_kib'] / 1024:.1f} | {r['rss_max_kib'] / 1024:.1f} |",
                f"| open fds | {r['fds_first']:g} | {r['fds_last']:g} | {r['fds_max']:g} |",
                f"| threads | {r['threads_first']:g} | {r['threads_last']:g} | {r['threads_max']:g} |"]
    out += ["",
            f"First and last: medians of the first and last three samples taken after the {a.warmup:g} s warm-up "
            f"({r['counted_samples']} of {len(r['samples'])} samples, one every {a.sample:g} s).",
            "",
            "Threads by name at the first counted sample: " + ", ".join(f"{n} {c}" for n, c in sorted(r.get("threads_by_name_first", {}).items()))
            + "; changed by the last: " + (", ".join(f"{n} {c:+d}" for n, c in sorted(r.get("threads_changed", {}).items())) or "none") + "."]
    out += ["",
            f"Items: {r['expected_items']} born, {r['lines']} lines written, {r['duplicates']} duplicates, {r['misses']} missed, "
            f"{r['unexpected']} unexpected. Requests served: {r['requests']}. Failed source runs: {r['failed_source_runs']}. "
            f"Failed /metrics scrapes: {r['metrics_scrapes_failed']}. watch after SIGTERM: {r['exit_status']}.",
            "",
            "Result: " + ("ok" if not r["problems"] else "FAILED: " + "; ".join(r["problems"])),
            "",
            "Every sample (s, RSS MiB, fds, threads):",
            "",
            "```"]
    out += [f"{s['t']:7.1f} {s.get('rss_kib', 0) / 1024:7.1f} {s.get('fds', 0):4d} {s.get('threads', 0):3d}" for s in r["samples"]]
    out += ["```", ""]
    return "\n".join(out)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
