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
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("nginx did not start")

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


def write_corpus(folder, sources):
    os.makedirs(folder)
    for n in range(sources):
        items = [{"id": f"s{n}-{k}", "title": f"Item {k} of source {n}", "url": f"https://example.org/s{n}/{k}",
                  "published": f"2026-11-{(k % 28) + 1:02d}T10:00:00Z"} for k in range(3)]
        with open(os.path.join(folder, f"s{n}.json"), "w") as f:
            json.dump({"items": items}, f)


def config(path, base, sources, state):
    doc = {
        "defaults": {"interval": "1h", "jitter": "0s", "timeout": "30s"},
        "http": {"per_host": 32},
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
    ap.add_argument("--sources", type=int, default=10000)
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--bin", default=os.environ.get("TRIBUTARY_BIN", os.path.join(ROOT, ".build", "release", "tributary")))
    args = ap.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    scratch = tempfile.mkdtemp(prefix="tributary-scale-bench-")
    os.chmod(scratch, 0o755)
    nginx = pg = None
    rows = []
    try:
        write_corpus(os.path.join(scratch, "feeds"), args.sources)
        nginx = Nginx(scratch, os.path.join(scratch, "feeds"))
        pg = Postgres(scratch)
        log(f"nginx on {nginx.base}, PostgreSQL {pg.sql('SHOW server_version')} on {pg.url.split('@')[1]}, {args.sources} sources")
        for run in range(args.runs):
            cfg = os.path.join(scratch, f"sqlite-{run}", "tributary.json")
            os.makedirs(os.path.dirname(cfg))
            config(cfg, nginx.base, args.sources, {"path": "state.sqlite"})
            rows.append(run_setup(args.bin, scratch, f"sqlite-{run}-run", 1, cfg, args.sources))
            log(f"SQLite, 1 worker: {rows[-1]['wall']:.1f} s")
            for w in counts:
                schema = f"bench_{run}_{w}"
                cfg = os.path.join(scratch, f"pg-{run}-{w}", "tributary.json")
                os.makedirs(os.path.dirname(cfg))
                config(cfg, nginx.base, args.sources, {"url": pg.url, "schema": schema})
                rows.append(run_setup(args.bin, scratch, f"pg-{run}-{w}-run", w, cfg, args.sources, pg=pg, schema=schema))
                log(f"PostgreSQL, {w} worker(s): {rows[-1]['wall']:.1f} s")
    finally:
        if nginx:
            nginx.stop()
        if pg:
            pg.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    table = ["| state | workers | wall s | sources/s | worker CPU ms/source | PostgreSQL CPU ms/batch | statements/batch | server exec ms/batch |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        backend = "SQLite file" if "pg_cpu_ms" not in r else "PostgreSQL"
        pgcols = f"{r['pg_cpu_ms']:.2f} | {r['statements']:.1f} | {r['exec_ms']:.2f}" if "pg_cpu_ms" in r else "- | - | -"
        table.append(f"| {backend} | {r['workers']} | {r['wall']:.1f} | {r['sources_s']:.0f} | {r['worker_cpu_ms']:.2f} | {pgcols} |")
    text = "\n".join(table) + "\n"
    print(text)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "scale-out-latest.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
