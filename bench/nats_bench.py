#!/usr/bin/env python3
"""The nats sink's throughput beside nats-py, against one nats-server -js on loopback.

    python3 bench/nats_bench.py TRIBUTARY_BIN NATS_URL WORK_DIR [ITEMS] [RUNS]

(bench/nats.sh starts the server, a venv with nats-py and builds bench/nats_c_peer.c into
WORK_DIR/nats_c_peer, then calls this.) Every round runs,
in an order that rotates from round to round:

  tributary jsonl     tributary run --no-state: one json source (a local file of ITEMS items)
                      and a jsonl sink to /dev/null: the run without NATS (the baseline)
  tributary nats      the same run with the nats sink (stream BENCH), new ids every round
  tributary nats dup  the same ids again (--all is implied by --no-state): all duplicates
  nats-py async       nats-py: js.publish_async of the same JSON lines, 1,024 in flight, then
                      publish_async_completed (what the sink does)
  nats-py sync        nats-py: await js.publish of each line (one round trip per item)
  libnats async       the NATS C client alone (bench/nats_c_peer.c), 1,024 in flight
  libnats sync        the NATS C client alone, one js_PublishMsg at a time

and reports the medians of RUNS rounds (default 5): wall time, items/s, CPU time of the client
(the tributary process, or the Python process; never the server's), and for the nats sink its
own share (nats minus the baseline). The stream's message count is checked at the end.
"""
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import nats

BIN, URL, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
ITEMS = int(sys.argv[4]) if len(sys.argv) > 4 else 10_000
RUNS = int(sys.argv[5]) if len(sys.argv) > 5 else 5


def write_config(name, prefix, sink):
    source = {"name": "bench", "type": "json", "url": "file://" + WORK + "/items.json", "items": "items",
              "id_prefix": prefix, "kind": "video",
              "fields": {"id": "id", "title": "title", "summary": "summary", "url": "link"}}
    path = os.path.join(WORK, name + ".json")
    with open(path, "w") as f:
        json.dump({"sources": [source], "sinks": [sink]}, f)
    return path


def children_cpu():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def run_tributary(config):
    cpu, start = children_cpu(), time.perf_counter()
    r = subprocess.run([BIN, "run", "-c", config, "--no-state", "--quiet"], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if r.returncode != 0:
        sys.exit(f"tributary failed ({r.returncode}): {r.stderr}")
    return elapsed, children_cpu() - cpu


async def peer(lines, prefix, asynchronous):
    cpu, start = time.process_time(), time.perf_counter()
    nc = await nats.connect(URL)
    js = nc.jetstream(publish_async_max_pending=1024)
    for i, line in enumerate(lines):
        headers = {"Nats-Msg-Id": f"{prefix}:{i}"}
        if asynchronous:
            await js.publish_async("tributary.items.video", line, headers=headers)
        else:
            await js.publish("tributary.items.video", line, headers=headers)
    if asynchronous:
        await js.publish_async_completed()
    await nc.close()
    return time.perf_counter() - start, time.process_time() - cpu


def c_peer(prefix, mode):
    cpu = children_cpu()
    r = subprocess.run([os.path.join(WORK, "nats_c_peer"), URL, "tributary.items.video", prefix, os.path.join(WORK, "lines.jsonl"), mode, "1024"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"nats_c_peer failed ({r.returncode}): {r.stderr}")
    return float(r.stdout), children_cpu() - cpu


async def stream_count():
    nc = await nats.connect(URL)
    info = await nc.jetstream().stream_info("BENCH")
    await nc.close()
    return info.state.messages


def main():
    with open(os.path.join(WORK, "items.json"), "w") as f:
        json.dump({"items": [{"id": i, "title": f"Item {i}: a title of ordinary length",
                              "summary": "A summary of a couple of sentences, as feeds carry them. " * 3,
                              "link": f"https://example.org/items/{i}"} for i in range(ITEMS)]}, f)
    lines = subprocess.run([BIN, "run", "-c", write_config("lines", "py", {"type": "stdout", "format": "jsonl"}), "--no-state", "--quiet"],
                           capture_output=True, check=True).stdout.splitlines()
    assert len(lines) == ITEMS, len(lines)
    baseline = write_config("baseline", "b", {"type": "jsonl", "path": "/dev/null"})
    nats_sink = {"type": "nats", "url": URL, "stream": "BENCH"}
    dup = write_config("dup", "dup", nats_sink)
    run_tributary(dup)  # stores the ids the "dup" rows publish again

    with open(os.path.join(WORK, "lines.jsonl"), "wb") as f:
        f.write(b"\n".join(lines) + b"\n")
    tools = ["tributary jsonl", "tributary nats", "tributary nats dup", "nats-py async", "nats-py sync", "libnats async", "libnats sync"]
    times = {t: [] for t in tools}
    for r in range(RUNS):
        order = tools[r % len(tools):] + tools[:r % len(tools)]
        if r % 2:
            order.reverse()
        for t in order:
            if t == "tributary jsonl":
                times[t].append(run_tributary(baseline))
            elif t == "tributary nats":
                times[t].append(run_tributary(write_config(f"nats{r}", f"r{r}", nats_sink)))
            elif t == "tributary nats dup":
                times[t].append(run_tributary(dup))
            elif t.startswith("libnats"):
                times[t].append(c_peer(f"c{t.split()[1]}{r}", t.split()[1]))
            else:
                times[t].append(asyncio.run(peer(lines, f"{t.split()[1]}{r}", t.endswith("async"))))

    expected = ITEMS * (1 + 5 * RUNS)
    got = asyncio.run(stream_count())
    base = statistics.median(w for w, _ in times["tributary jsonl"])
    base_cpu = statistics.median(c for _, c in times["tributary jsonl"])
    print(f"{ITEMS} items ({sum(map(len, lines)) // ITEMS} bytes each), median of {RUNS} rounds; stream BENCH holds {got} (expected {expected})\n")
    print("| tool | wall s | items/s | client CPU s | the sink's own share (minus the jsonl run) |")
    print("|---|---|---|---|---|")
    for t in tools:
        wall = statistics.median(w for w, _ in times[t])
        cpu = statistics.median(c for _, c in times[t])
        share = ""
        if t.startswith("tributary nats"):
            share = f"{wall - base:.3f} s wall, {cpu - base_cpu:.3f} s CPU"
            if wall > base:
                share += f": {ITEMS / (wall - base):,.0f} items/s"
        print(f"| {t} | {wall:.3f} | {ITEMS / wall:,.0f} | {cpu:.3f} | {share} |")
    if got != expected:
        sys.exit("the stream does not hold what was published")


main()
