#!/usr/bin/env python3
"""Scale-out benchmark (Docs/PERFORMANCE.md#scale-out, Docs/scale-out.md): 10,000 `json` sources
(one ~300-byte page of 3 items each, served by nginx on 127.0.0.1), run once each by
`tributary watch` workers: one worker on a SQLite state file, then 1, 2 and 4 workers on one
PostgreSQL state (a throwaway server from Sources-config/scale-out/postgres.sh, fsync off).

For each setup: wall time until every source's items are in the workers' jsonl files (from the
moment the workers start, connection and migration included), sources per second, the workers'
CPU per source, and for PostgreSQL the state's cost per batch (one batch per source here): the
statements and their server execution time (pg_stat_statements) and the CPU of the server's
processes, all divided by the sources run.

    python3 bench/scale_out.py [--sources 10000] [--workers 1,2,4] [--runs 1] [--bin PATH]
    python3 bench/scale_out.py --delay [--sources 2000] [--workers 1,2,4]

`--delay` measures coordination, not CPU: the feeds come from a server of this script's own
(asyncio, 127.0.0.1) that answers each request after 500 ms (`--delay-ms`), and each worker has
`http.concurrency` 16, so a worker can fetch at most 32 sources a second and N workers N times
that if sharing the state costs them nothing. It reports sources/s per setup and its ratio to
the 1-worker PostgreSQL run (the goal is at least 3.6 with 4 workers), and checks from the
server's access log that every source was fetched exactly once (interval 1 h: once per
interval) besides every item written once. 2,000 sources by default: about a minute for one
worker, a few minutes for the whole run.

Needs nginx (nginx-light) and PostgreSQL (postgresql): bench/run.sh and make test-tools install
them. Prints a Markdown table and writes it to bench/results/scale-out-latest.md.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
POSTGRES_SH = os.path.join(ROOT, "Sources-config", "scale-out", "postgres.sh")
TICKS = os.sysconf("SC_CLK_TCK")


def log(msg):
    print(f"scale-out bench: {msg}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid, children=False):
    """utime + stime (and the reaped children's with children=True) of a live process."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    t = int(fields[11]) + int(fields[12])
    if children:
        t += int(fields[13]) + int(fields[14])
    return t / TICKS


def postgres_cpu(postmaster):
    """CPU seconds of the postmaster, its live children and the children it reaped."""
    total = cpu_seconds(postmaster, children=True)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == postmaster:
                total += (int(fields[11]) + int(fields[12])) / TICKS
        except (OSError, IndexError, ValueError):
            pass
    return total


def postgres_cpu_by_process(postmaster):
    """CPU seconds of the server's live processes by kind (backends of the workers apart), and
    of the children it reaped (autovacuum workers, ended connections), since it started."""
    out = {"reaped children": cpu_seconds(postmaster, children=True) - cpu_seconds(postmaster)}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) != postmaster:
                continue
            with open(f"/proc/{entry}/cmdline") as f:
                name = f.read().replace("\0", " ").strip()
            kind = "worker backends" if "127.0.0.1(" in name else name.split("(")[0]
            out[kind] = out.get(kind, 0) + (int(fields[11]) + int(fields[12])) / TICKS
        except (OSError, IndexError, ValueError):
            pass
    return out


def wait_port(port, what):
    """Returns once 127.0.0.1:port accepts a connection; exits after 5 s of trying."""
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"{what} did not start")

class Nginx:
    def __init__(self, scratch, root):
        self.dir = os.path.join(scratch, "nginx")
        os.makedirs(self.dir)
        self.port = free_port()
        conf = os.path.join(self.dir, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""daemon off;
master_process off;
worker_processes 1;
pid {self.dir}/nginx.pid;
error_log {self.dir}/error.log;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    open_file_cache max=20000 inactive=300s;
    server {{ listen 127.0.0.1:{self.port} backlog=4096; root {root}; default_type application/json; }}
}}
""")
        exe = shutil.which("nginx") or "/usr/sbin/nginx"
        self.proc = subprocess.Popen([exe, "-c", conf, "-p", self.dir], stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        wait_port(self.port, "nginx")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


class Postgres:
    def __init__(self, scratch):
        self.dir = os.path.join(scratch, "pg")
        self.url = subprocess.run(["bash", POSTGRES_SH, "start", self.dir], check=True, capture_output=True, text=True).stdout.strip()
        with open(os.path.join(self.dir, "data", "postmaster.pid")) as f:
            self.pid = int(f.readline())
        self.sql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")

    def sql(self, query):
        r = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-d", self.url, "-c", query], check=True, capture_output=True, text=True)
        return r.stdout.strip()

    def stop(self):
        subprocess.run(["bash", POSTGRES_SH, "stop", self.dir], check=False)


DELAY_SERVER = r"""
import asyncio, os, sys, time
root, port, delay, log_path = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
bodies = {name: open(os.path.join(root, name), "rb").read() for name in os.listdir(root)}
log = open(log_path, "w", buffering=1)

async def handle(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            path = head.split(b" ", 2)[1].decode()
            await asyncio.sleep(delay)
            body = bodies.get(path.rsplit("/", 1)[-1])
            log.write(f"{time.time():.3f} {path}\n")
            if body is None:
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            else:
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, IndexError):
        pass
    finally:
        writer.close()

async def serve():
    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=4096)
    async with server:
        await server.serve_forever()

asyncio.run(serve())
"""


class DelayServer:
    """The `--delay` server: every answer after `delay` seconds, each request logged (time, path)."""

    def __init__(self, scratch, root, delay):
        self.dir = os.path.join(scratch, "delay-server")
        os.makedirs(self.dir)
        self.port = free_port()
        self.log = os.path.join(self.dir, "access.log")
        script = os.path.join(self.dir, "server.py")
        with open(script, "w") as f:
            f.write(DELAY_SERVER)
        self.proc = subprocess.Popen([sys.executable, script, root, str(self.port), str(delay), self.log])
        self.base = f"http://127.0.0.1:{self.port}"
        wait_port(self.port, "the delay server")

    def fetches(self, prefix):
        """Requests per path under `prefix`, and the times of the first and last."""
        counts, first, last = {}, None, None
        with open(self.log) as f:
            for line in f:
                t, path = line.split()
                if path.startswith(prefix + "/"):
                    counts[path] = counts.get(path, 0) + 1
                    t = float(t)
                    first = t if first is None else min(first, t)
                    last = t if last is None else max(last, t)
        return counts, first, last

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def write_corpus(folder, sources):
    os.makedirs(folder)
    for n in range(sources):
        items = [{"id": f"s{n}-{k}", "title": f"Item {k} of source {n}", "url": f"https://example.org/s{n}/{k}",
                  "published": f"2026-11-{(k % 28) + 1:02d}T10:00:00Z"} for k in range(3)]
        with open(os.path.join(folder, f"s{n}.json"), "w") as f:
            json.dump({"items": items}, f)


def config(path, base, sources, state, concurrency=None):
    doc = {
        "defaults": {"interval": "1h", "jitter": "0s", "timeout": "30s"},
        "http": {"per_host": 32} if concurrency is None else {"concurrency": concurrency, "per_host": concurrency},
        "state": state,
        "sources": [{"name": f"s{n}", "type": "json", "url": f"{base}/s{n}.json", "items": "items", "id_prefix": "b",
                     "fields": {"id": "id", "title": "title", "url": "url", "published": "published"}} for n in range(sources)],
        "sinks": [{"type": "jsonl", "path": "out/${TRIBUTARY_WORKER}.jsonl"}],
    }
    with open(path, "w") as f:
        json.dump(doc, f)


def lines(folder):
    total = 0
    for name in os.listdir(folder) if os.path.isdir(folder) else []:
        with open(os.path.join(folder, name), "rb") as f:
            total += f.read().count(b"\n")
    return total


def pg_statement_profile(pg, sources):
    """The statements of the run by calls, with their execution time per source."""
    rows = pg.sql("SELECT calls, round(total_exec_time::numeric, 1), regexp_replace(left(query, 90), '\\s+', ' ', 'g') FROM pg_stat_statements "
                  "WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY calls DESC LIMIT 14")
    return [f"{int(c) / sources:7.3f}/source {float(ms) * 1000 / sources:7.1f} us/source  {q}" for c, ms, q in (r.split("|", 2) for r in rows.splitlines())]


def run_setup(binary, scratch, label, workers, cfg, sources, pg=None, schema=None):
    work = os.path.join(scratch, label)
    os.makedirs(work)
    out = os.path.join(os.path.dirname(cfg), "out")
    shutil.rmtree(out, ignore_errors=True)
    if pg:
        pg.sql("SELECT pg_stat_statements_reset()")
        pg_cpu0 = postgres_cpu(pg.pid)
    procs = []
    start = time.monotonic()
    for w in range(1, workers + 1):
        env = dict(os.environ, TRIBUTARY_WORKER=f"w{w}")
        err = open(os.path.join(work, f"w{w}.log"), "w")
        procs.append(subprocess.Popen([binary, "watch", "-c", cfg, "--worker", f"w{w}", "--quiet"], env=env,
                                      stdout=subprocess.DEVNULL, stderr=err))
    want = sources * 3
    deadline = start + 1800
    while lines(out) < want:
        if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
            for p in procs:
                p.kill()
            raise SystemExit(f"{label}: {lines(out)} of {want} items; see {work}/w*.log")
        time.sleep(0.05)
    wall = time.monotonic() - start
    worker_cpu = sum(cpu_seconds(p.pid) for p in procs)
    row = {"setup": label, "workers": workers, "wall": wall, "sources_s": sources / wall, "worker_cpu_ms": worker_cpu * 1000 / sources}
    if pg:
        row["pg_cpu_ms"] = (postgres_cpu(pg.pid) - pg_cpu0) * 1000 / sources
        calls, exec_ms = pg.sql("SELECT sum(calls), sum(total_exec_time) FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'").split("|")
        row["statements"] = int(calls) / sources
        row["exec_ms"] = float(exec_ms) / sources
        if os.environ.get("SCALE_OUT_PROFILE"):
            for line in pg_statement_profile(pg, sources):
                log(f"  {label}: {line}")
            for name, cpu in postgres_cpu_by_process(pg.pid).items():
                log(f"  {label}: server CPU so far, {name}: {cpu:.2f} s")
    for p in procs:
        p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
    counted = lines(out)
    if counted != want:
        raise SystemExit(f"{label}: {counted} items in the jsonl files, expected {want} (each once)")
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sources", type=int, default=None, help="10000, or 2000 with --delay")
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--delay", action="store_true", help="the delay-bound mode: every answer after --delay-ms, http.concurrency 16 per worker")
    ap.add_argument("--delay-ms", type=float, default=500)
    ap.add_argument("--bin", default=os.environ.get("TRIBUTARY_BIN", os.path.join(ROOT, ".build", "release", "tributary")))
    args = ap.parse_args()
    if args.sources is None:
        args.sources = 2000 if args.delay else 10000
    counts = [int(w) for w in args.workers.split(",")]
    scratch = tempfile.mkdtemp(prefix="tributary-scale-bench-")
    os.chmod(scratch, 0o755)
    server = pg = None
    rows = []
    concurrency = 16 if args.delay else None
    try:
        write_corpus(os.path.join(scratch, "feeds"), args.sources)
        server = DelayServer(scratch, os.path.join(scratch, "feeds"), args.delay_ms / 1000) if args.delay else Nginx(scratch, os.path.join(scratch, "feeds"))
        pg = Postgres(scratch)
        log(f"{'delay server (' + str(int(args.delay_ms)) + ' ms)' if args.delay else 'nginx'} on {server.base}, PostgreSQL {pg.sql('SHOW server_version')} on {pg.url.split('@')[1]}, {args.sources} sources")

        def setup(label, workers, state, use_pg):
            cfg = os.path.join(scratch, label, "tributary.json")
            os.makedirs(os.path.dirname(cfg))
            prefix = "/" + label if args.delay else ""
            config(cfg, server.base + prefix, args.sources, state, concurrency)
            row = run_setup(args.bin, scratch, label + "-run", workers, cfg, args.sources, pg=pg if use_pg else None)
            if args.delay:
                fetched, first, last = server.fetches(prefix)
                wrong = {p: n for p, n in fetched.items() if n != 1}
                if len(fetched) != args.sources or wrong:
                    raise SystemExit(f"{label}: {len(fetched)} of {args.sources} sources fetched; fetched more than once: {sorted(wrong.items())[:10]}")
                # From the first request (its answer's time less the delay) to the last answer:
                # the workers' start-up (connection, migration, the first look) left out.
                row["fetch_span"] = last - first + args.delay_ms / 1000
            return row

        for run in range(args.runs):
            rows.append(setup(f"sqlite-{run}", 1, {"path": "state.sqlite"}, False))
            log(f"SQLite, 1 worker: {rows[-1]['wall']:.1f} s")
            for w in counts:
                rows.append(setup(f"pg-{run}-{w}", w, {"url": pg.url, "schema": f"bench_{run}_{w}"}, True))
                log(f"PostgreSQL, {w} worker(s): {rows[-1]['wall']:.1f} s")
    finally:
        if server:
            server.stop()
        if pg:
            pg.stop()
        if os.environ.get("KEEP"):
            log(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    one = [r["sources_s"] for r in rows if "pg_cpu_ms" in r and r["workers"] == 1]
    base = sorted(one)[len(one) // 2] if one else None
    one_span = [args.sources / r["fetch_span"] for r in rows if "pg_cpu_ms" in r and r["workers"] == 1 and "fetch_span" in r]
    base_span = sorted(one_span)[len(one_span) // 2] if one_span else None
    table = ["| state | workers | wall s | sources/s | x 1 PostgreSQL worker | worker CPU ms/source | PostgreSQL CPU ms/batch | statements/batch | server exec ms/batch |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        backend = "SQLite file" if "pg_cpu_ms" not in r else "PostgreSQL"
        pgcols = f"{r['pg_cpu_ms']:.2f} | {r['statements']:.1f} | {r['exec_ms']:.2f}" if "pg_cpu_ms" in r else "- | - | -"
        ratio = f"{r['sources_s'] / base:.2f}" if base else "-"
        table.append(f"| {backend} | {r['workers']} | {r['wall']:.1f} | {r['sources_s']:.1f} | {ratio} | {r['worker_cpu_ms']:.2f} | {pgcols} |")
    if args.delay:
        table += ["", "While fetching (first request to last answer in the server's log, start-up left out):", "",
                  "| state | workers | fetch span s | sources/s | x 1 PostgreSQL worker |", "|---|---|---|---|---|"]
        for r in rows:
            rate = args.sources / r["fetch_span"]
            table.append(f"| {'SQLite file' if 'pg_cpu_ms' not in r else 'PostgreSQL'} | {r['workers']} | {r['fetch_span']:.1f} | {rate:.1f} | {rate / base_span:.2f} |")
    text = "\n".join(table) + "\n"
    if args.delay:
        text = f"Delay-bound: {args.sources} sources, answers after {args.delay_ms:.0f} ms, http.concurrency 16 per worker; each source fetched once (access log).\n\n" + text
    print(text)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "scale-out-delay-latest.md" if args.delay else "scale-out-latest.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
