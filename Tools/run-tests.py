#!/usr/bin/env python3
"""Runs an XCTest bundle's test classes in parallel processes, a class per process.

The suite mostly waits (loopback servers, timeouts, signals, child processes), so on a machine
with few cores several classes at once finish far sooner than one after another. Every class
starts its own servers on free ports of 127.0.0.1 in its own scratch folders, and the shared
PostgreSQL server of TributaryTestSupport is one per process, so classes never share anything.

    run-tests.py BUNDLE [--jobs N] [--skip REGEX] [--only REGEX] [--logs DIR] [--timeout S]

--only/--skip match "Module.Class/testName"; a class with some tests skipped runs the rest by
name. The longest classes start first (their times from the last run in --logs, else a few
known ones), so that no long class is left alone at the end. A line per class as it ends; then
the whole log of every class that failed, and one summary line. Exit 0 when every class passed.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import OrderedDict

# Known long classes (seconds on 2 cores, under ThreadSanitizer or in make test), used when
# --logs holds no times from an earlier run.
KNOWN_LONG = {
    "StateEndToEndTests": 176, "HostileRoundTwoHeldTests": 95, "ScaleOutTests": 72,
    "SoakTests": 64, "NATSEndToEndTests": 58, "HostileRoundTwoStateTests": 48,
    "ExecEndToEndTests": 47, "RunTests": 43, "JSONDifferentialTests": 41, "CLITests": 40,
    "HTTP2EndToEndTests": 40, "HostileRoundTwoSinksTests": 38, "JQEndToEndTests": 38,
    "HostileServersTests": 34, "HostileHeldTests": 33, "TemplateEndToEndTests": 32,
    # CPU-bound in a debug build (make test): 20 MB pages, hostile markup.
    "ArticleExtractorTests": 90, "HTMLDocumentTests": 80, "HostileFeedsTests": 40,
}


def list_tests(bundle):
    out = subprocess.run([bundle, "--list-tests"], capture_output=True, text=True, check=True).stdout
    return [line.strip() for line in out.splitlines() if re.match(r"^\w+\.\w+/\w+$", line.strip())]


def plan(tests, only, skip):
    """OrderedDict class -> the argument that runs it (the class, or its kept tests by name)."""
    by_class = OrderedDict()
    for t in tests:
        by_class.setdefault(t.split("/")[0], []).append(t)
    runs = OrderedDict()
    for cls, names in by_class.items():
        kept = [t for t in names if (not only or re.search(only, t)) and not (skip and re.search(skip, t))]
        if kept:
            runs[cls] = cls if len(kept) == len(names) else ",".join(kept)
    return runs


def load_times(logs):
    times = {}
    try:
        with open(os.path.join(logs, "times.txt")) as f:
            for line in f:
                seconds, cls = line.split()
                times[cls] = float(seconds)
    except (OSError, ValueError):
        pass
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bundle")
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--skip", default="")
    ap.add_argument("--logs", default=".build/test-logs")
    ap.add_argument("--timeout", type=float, default=3600, help="for the whole run, in seconds")
    args = ap.parse_args()

    runs = plan(list_tests(args.bundle), args.only, args.skip)
    if not runs:
        print(f"run-tests: no test matches (--only {args.only!r}, --skip {args.skip!r})", file=sys.stderr)
        return 1
    times = load_times(args.logs)
    order = sorted(runs, key=lambda c: -times.get(c, KNOWN_LONG.get(c.split(".")[-1], 0)))
    os.makedirs(args.logs, exist_ok=True)
    for name in os.listdir(args.logs):
        if name.endswith(".log"):
            os.remove(os.path.join(args.logs, name))

    lock = threading.Lock()
    queue = list(order)
    results = {}   # class -> (status, seconds, executed line)
    started = time.monotonic()
    deadline = started + args.timeout

    def worker():
        while True:
            with lock:
                if not queue or time.monotonic() > deadline:
                    return
                cls = queue.pop(0)
            log_path = os.path.join(args.logs, cls + ".log")
            t0 = time.monotonic()
            with open(log_path, "w") as log:
                # A process group of its own, so a timeout ends what the class started too.
                p = subprocess.Popen([args.bundle, runs[cls]], stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
                try:
                    status = p.wait(timeout=max(1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
                    status = "timeout"
            seconds = time.monotonic() - t0
            executed = ""
            with open(log_path, errors="replace") as log:
                for line in log:
                    if line.lstrip().startswith("Executed "):
                        executed = line.strip()
            with lock:
                results[cls] = (status, seconds, executed)
                word = "ok  " if status == 0 else "FAIL"
                print(f"{word} {seconds:7.1f} s  {cls}  ({executed or 'no summary: exit ' + str(status)})", flush=True)

    threads = [threading.Thread(target=worker) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - started

    with open(os.path.join(args.logs, "times.txt"), "w") as f:
        for cls, (_, seconds, _) in sorted(results.items(), key=lambda kv: -kv[1][1]):
            f.write(f"{seconds:.1f} {cls}\n")

    failed = [c for c in order if c in results and results[c][0] != 0]
    never = [c for c in order if c not in results]
    for cls in failed:
        print(f"---- {cls}: exit {results[cls][0]}, its whole log ({os.path.join(args.logs, cls + '.log')}):", flush=True)
        with open(os.path.join(args.logs, cls + ".log"), errors="replace") as log:
            sys.stdout.write(log.read())
    total = sum(int(m.group(1)) for _, _, e in results.values() for m in [re.match(r"Executed (\d+) test", e)] if m)
    busy = sum(s for _, s, _ in results.values())
    print(f"run-tests: {len(results)} classes, {total} tests in {wall:.0f} s with {args.jobs} at a time "
          f"({busy:.0f} s one after another); failed: {', '.join(failed) or 'none'}"
          + (f"; never started (the {args.timeout:.0f} s limit): {', '.join(never)}" if never else ""), flush=True)
    return 0 if not failed and not never else 1


if __name__ == "__main__":
    sys.exit(main())
