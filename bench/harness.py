#!/usr/bin/env python3
"""Tributary's benchmarks beside the fastest ordinary tools for the same job. Run it through
bench/run.sh, which installs what is missing and builds the release binary:

    bash bench/run.sh decode|fetch|many|startup|jq|all|serve|watch

Every mode runs each tool RUNS times (default 5), in rounds whose order alternates (ABCD, DCBA,
BCDA, ADCB, ...: each tool takes every position, forwards and backwards), and reports medians
as a Markdown table, printed and written to bench/results/<mode>-latest.md. See
bench/README.md for what each mode measures, its knobs, and how to read the tables.

Measurement: each tool runs as a child process; wall time is taken around it with a monotonic
clock, and CPU (user + system) and peak RSS come from wait4(2), the same numbers GNU time -v
prints, at microsecond resolution. For a pipeline (curl | jq) the CPU times add up and so do
the peaks (the processes run side by side). The loopback servers' CPU is read from
/proc/<pid>/stat before and after each run.
"""
import ctypes
import datetime as dt
import hashlib
import json
import os
import platform
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results")
CORPUS = os.path.join(HERE, "corpus")          # decode: page-0001.json ... (git-ignored)
CORPUS_MANY = os.path.join(CORPUS, "many")     # many: one-item pages, page-00001.json ...
CLK_TCK = os.sysconf("SC_CLK_TCK")
NPROC = os.cpu_count() or 1
SERVER_SHARE_WARN = 0.25   # a server using more than this share of one core is worth a warning


def env_int(name, default, lo=1, hi=10**9):
    raw = os.environ.get(name, "")
    if raw == "":
        return default
    try:
        v = int(raw)
    except ValueError:
        die(f"{name} must be an integer, found {raw!r}")
    if not lo <= v <= hi:
        die(f"{name} must be {lo}..{hi}, found {v}")
    return v


def env_float(name, default):
    raw = os.environ.get(name, "")
    try:
        return float(raw) if raw else default
    except ValueError:
        die(f"{name} must be a number, found {raw!r}")


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def die(msg):
    print(f"bench: error: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


BIN = os.environ.get("TRIBUTARY_BIN", "")
RUNS = env_int("RUNS", 5, 1, 1000)
# Untimed runs of every tool before the rounds: the first run after the corpus is written or the
# server starts meets cold caches (nginx's open-file lookups of 10,000 files, the page cache of
# the binary), whichever tool happens to go first.
WARMUP = env_int("WARMUP", 1, 0, 10)
RUN_TIMEOUT = env_float("RUN_TIMEOUT", 600.0)     # seconds; a run that takes longer is killed and fails the mode
KEEP_OUTPUT = os.environ.get("KEEP_OUTPUT", "0") == "1"

# ---- processes -----------------------------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)
_children = set()      # servers' pids, ended on exit
_groups = set()        # process group of the tool running now, killed on exit
GNU_TIME = "/usr/bin/time"
_scratch = []          # folders to remove on exit


def _die_with_parent():
    _libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: a server never outlives the harness


def start_server(argv, **kw):
    p = subprocess.Popen(argv, preexec_fn=_die_with_parent, **kw)
    _children.add(p.pid)
    return p


def stop_server(p):
    if p is None or p.poll() is not None:
        _children.discard(getattr(p, "pid", None))
        return
    p.terminate()
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait(timeout=5)
    _children.discard(p.pid)


def write_results(name, text):
    """Prints a benchmark's report and keeps it as results/<name> (git-ignored)."""
    print(text, flush=True)
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, name), "w") as f:
        f.write(text)


def cleanup():
    for g in list(_groups):
        _killpg(g)
    for pid in list(_children):
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 5
    for pid in list(_children):
        while time.monotonic() < deadline:
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    break
            except ChildProcessError:
                break
            time.sleep(0.05)
        else:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    _children.clear()
    for d in _scratch:
        shutil.rmtree(d, ignore_errors=True)


def _on_signal(signum, _frame):
    raise SystemExit(128 + signum)


def proc_cpu_seconds(pids):
    """User + system CPU of these processes so far (all their threads), from /proc/<pid>/stat."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
        except (FileNotFoundError, ProcessLookupError, IndexError):
            pass
    return total / CLK_TCK


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[:3]


def run_measured(stages, stdout_path, cwd=ROOT, server_pids=()):
    """Runs a pipeline of one or more argv lists, the last one writing to stdout_path.
    Returns {wall, cpu, user, sys, rss_kib, server_cpu, rc, stderr}; rc is the first non-zero
    exit status of a stage (or 0).

    Each stage runs under GNU time (/usr/bin/time -f %M), for its peak RSS only: a process
    started straight from this (large) Python process would have the harness's own resident
    pages counted in its ru_maxrss (vfork shares them until exec; exec_mmap records them), and
    GNU time forks from a process of about 1.5 MiB. CPU comes from wait4 of the GNU time
    process, which includes the tool's (microseconds; GNU time's own start costs under 1 ms)."""
    err_path = stdout_path + ".err"
    out = open(stdout_path, "wb")
    err = open(err_path, "wb")
    procs = []
    rss_files = []
    pgid = 0
    srv_before = proc_cpu_seconds(server_pids)
    t0 = time.perf_counter()
    prev_read = subprocess.DEVNULL
    try:
        for i, argv in enumerate(stages):
            last = i == len(stages) - 1
            if last:
                w = out
            else:
                r, w = os.pipe()
            rss_file = f"{stdout_path}.rss{i}"
            rss_files.append(rss_file)
            p = subprocess.Popen([GNU_TIME, "-f", "%M", "-o", rss_file] + argv, stdin=prev_read, stdout=w,
                                 stderr=err, cwd=cwd, process_group=pgid)
            if not pgid:
                pgid = p.pid  # the whole pipeline in one process group, ended as one
                _groups.add(pgid)
            procs.append(p)
            if prev_read is not subprocess.DEVNULL:
                os.close(prev_read)
            if not last:
                os.close(w)
                prev_read = r
        expired = threading.Event()

        def on_timeout():
            expired.set()
            _killpg(pgid)

        timer = threading.Timer(RUN_TIMEOUT, on_timeout)
        timer.daemon = True
        timer.start()
        user = sys_ = 0.0
        rc = 0
        for p in procs:
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
            user += ru.ru_utime
            sys_ += ru.ru_stime
            if p.returncode != 0 and rc == 0:
                rc = p.returncode
        wall = time.perf_counter() - t0
        timer.cancel()
        timed_out = expired.is_set()
    finally:
        out.close()
        err.close()
        if pgid:
            _killpg(pgid)  # nothing of the pipeline outlives it
            _groups.discard(pgid)
    srv_after = proc_cpu_seconds(server_pids)
    rss = 0
    for f in rss_files:
        try:
            with open(f) as fh:
                rss += int(fh.read().split()[-1])  # last line: "Command exited with ..." may come first
        except (OSError, ValueError, IndexError):
            pass
    with open(err_path, "rb") as f:
        stderr = f.read().decode("utf-8", "replace")
    if timed_out:
        stderr += f"\n(killed after RUN_TIMEOUT={RUN_TIMEOUT:g} s)"
        rc = rc or -9
    return {"wall": wall, "cpu": user + sys_, "user": user, "sys": sys_, "rss_kib": rss,
            "server_cpu": srv_after - srv_before, "rc": rc, "stderr": stderr}


def _killpg(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def round_order(tools, r):
    """Round r's order: rotated by r // 2, reversed on odd rounds (ABCD, DCBA, BCDA, ADCB, CDAB...)."""
    k = (r // 2) % len(tools)
    order = tools[k:] + tools[:k]
    return order[::-1] if r % 2 else order


# ---- outputs -------------------------------------------------------------------------------

_FETCHED = re.compile(rb',"fetched":"[^"]*"')
_SOURCE = re.compile(rb'"source":"[^"]*"')


def normalized_lines(path, rename_source):
    """The output's lines without `fetched`; with rename_source, the (first) `source` is set to
    "bench", so that a config of many sources compares with one source named bench."""
    with open(path, "rb") as f:
        lines = f.read().splitlines()
    out = []
    for ln in lines:
        ln = _FETCHED.sub(b"", ln, count=1)
        if rename_source:
            ln = _SOURCE.sub(b'"source":"bench"', ln, count=1)
        out.append(ln)
    out.sort()
    return out


def count_lines(path):
    n = 0
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                return n
            n += b.count(b"\n")


def compare_outputs(outputs, reference):
    """outputs: {tool: (path, rename_source)}. Returns (same: bool, text)."""
    ref_lines = normalized_lines(*outputs[reference])
    ref = hashlib.sha256(b"\n".join(ref_lines)).hexdigest()
    differing = []
    for tool, (path, rename) in outputs.items():
        if tool == reference:
            continue
        lines = normalized_lines(path, rename)
        if hashlib.sha256(b"\n".join(lines)).hexdigest() != ref:
            a, b = set(ref_lines), set(lines)
            only_ref = sorted(a - b)[:1]
            only_tool = sorted(b - a)[:1]
            differing.append(tool)
            diff_path = os.path.join(RESULTS, f"diff-{tool}.txt")
            with open(diff_path, "wb") as f:
                f.write(b"only in %s:\n" % reference.encode() + b"\n".join(only_ref)
                        + b"\nonly in %s:\n" % tool.encode() + b"\n".join(only_tool) + b"\n")
            log(f"{tool}'s items differ from {reference}'s: first difference in {diff_path}")
    if differing:
        return False, f"no ({', '.join(differing)} differ from {reference}; see results/diff-*.txt)"
    return True, "yes"


# ---- servers -------------------------------------------------------------------------------

def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url, proc, what, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            die(f"{what} exited early (status {proc.returncode})")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                r.read()
                return
        except OSError:
            time.sleep(0.1)
    die(f"{what} did not answer {url} within {seconds} s")


class Nginx:
    """nginx serving bench/corpus/ (static files) on 127.0.0.1: one process, keep-alive."""

    def __init__(self, scratch, access_log=None):
        self.dir = os.path.join(scratch, "nginx")
        os.makedirs(self.dir, exist_ok=True)
        self.port = free_port()
        conf = os.path.join(self.dir, "nginx.conf")
        # access_log: a file of "$msec $status $http_user_agent $uri" lines (watch mode: who asked
        # what when, and whether it was answered 304); off otherwise.
        log_conf = (f"log_format bench '$msec $status $http_user_agent $uri';\n    access_log {access_log} bench;"
                    if access_log else "access_log off;")
        with open(conf, "w") as f:
            f.write(f"""daemon off;
master_process off;
worker_processes 1;
pid {self.dir}/nginx.pid;
error_log {self.dir}/error.log;
events {{ worker_connections 4096; }}
http {{
    {log_conf}
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    open_file_cache max=20000 inactive=300s;
    server {{
        listen 127.0.0.1:{self.port} backlog=4096;
        root {CORPUS};
        default_type application/json;
    }}
}}
""")
        exe = shutil.which("nginx") or "/usr/sbin/nginx"
        self.proc = start_server([exe, "-c", conf, "-p", self.dir], stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        # Any page that exists: a `many` run has no decode corpus, and the other way round.
        probe = "page-0001.json" if os.path.exists(os.path.join(CORPUS, "page-0001.json")) else "many/page-00001.json"
        wait_http(f"{self.base}/{probe}", self.proc, "nginx")
        self.pids = [self.proc.pid]
        log(f"nginx on {self.base} (pid {self.proc.pid}), serving {CORPUS}")

    def stop(self):
        stop_server(self.proc)


class DelayServer:
    """bench/delay_server.py: answers after a fixed delay (fetch mode)."""

    def __init__(self, delay, size, items=1, prebuild=0):
        self.proc = start_server([sys.executable, os.path.join(HERE, "delay_server.py"),
                                  "--delay", str(delay), "--size", str(size), "--items", str(items),
                                  "--prebuild", str(prebuild)],
                                 stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.isdigit():
            die("delay_server.py did not print its port")
        self.port = int(line)
        self.base = f"http://127.0.0.1:{self.port}"
        wait_http(f"{self.base}/f/1.json", self.proc, "delay_server.py")
        self.pids = [self.proc.pid]
        log(f"delay server on {self.base} (pid {self.proc.pid}), {delay * 1000:g} ms, {size} bytes, {items} item(s) a body")

    def stop(self):
        stop_server(self.proc)


# ---- configs -------------------------------------------------------------------------------

FIELDS = {
    "id": "id.videoId",
    "title": "snippet.title",
    "summary": "snippet.description",
    "image": "snippet.thumbnails.high.url",
    "author": "snippet.channelTitle",
    "published": "snippet.publishedAt",
    "data": {"channel_id": "snippet.channelId", "live_broadcast_content": "snippet.liveBroadcastContent"},
}


def write_config(path, urls, concurrency, per_host, one_source):
    """A Tributary config: one `json` source named bench with all URLs in `urls`, or one source
    per URL (named s00001...) with id_prefix bench, so that the item ids are the same."""
    if one_source:
        sources = [{"name": "bench", "type": "json", "urls": urls, "items": "items", "fields": FIELDS}]
    else:
        sources = [{"name": f"s{i:05d}", "type": "json", "url": u, "id_prefix": "bench",
                    "items": "items", "fields": FIELDS} for i, u in enumerate(urls, 1)]
    cfg = {"$comment": "generated by bench/harness.py; the URLs point at a loopback server that is gone after the run",
           "http": {"concurrency": concurrency, "per_host": per_host},
           "sources": sources}
    save_config(path, cfg)


def save_config(path, cfg):
    """Writes a config and has tributary check it."""
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)
        f.write("\n")
    r = subprocess.run([BIN, "check", "-c", path], capture_output=True, text=True)
    if r.returncode != 0:
        die(f"tributary check -c {path} failed: {r.stderr.strip()}")


def write_lines(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def tributary_cmd(cfg):
    return [[BIN, "run", "-c", cfg, "--jsonl", "--no-state", "--quiet"]]


# TRIBUTARY_BASELINE_BIN: a second tributary binary (an earlier commit's) measured beside the
# first in the same rounds, each of its tools named "<tool> @base", so a change is compared
# with what it changed in one run. Its items are checked like the first binary's.
BASE_BIN = os.environ.get("TRIBUTARY_BASELINE_BIN", "")
BASE_SUFFIX = " @base"


def with_baseline(tools, commands):
    """Adds the baseline binary's variant of every tributary tool, right after it."""
    if not BASE_BIN:
        return tools, commands
    out = []
    for t in tools:
        out.append(t)
        if t.startswith("tributary"):
            b = t + BASE_SUFFIX
            out.append(b)
            commands[b] = [[BASE_BIN if a == BIN else a for a in argv] for argv in commands[t]]
    return out, commands


def unbased(tool):
    return tool[:-len(BASE_SUFFIX)] if tool.endswith(BASE_SUFFIX) else tool


def aiohttp_cmd(url_file, n, per_host):
    return [[sys.executable, os.path.join(HERE, "peer_aiohttp.py"), "--concurrency", str(n),
             "--per-host", str(per_host), url_file]]


def now_utc():
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def jq_cmd(curl_args, n):
    return [["curl", "-sS", "--no-progress-meter", "--fail", "--parallel", "--parallel-max", str(n)] + curl_args,
            ["jq", "-c", "--arg", "source", "bench", "--arg", "fetched", now_utc(), "-f", os.path.join(HERE, "map.jq")]]


# ---- report --------------------------------------------------------------------------------

def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{NPROC} cores ({model}), {platform.system()} {platform.release()}"


def tributary_commit():
    given = os.environ.get("TRIBUTARY_COMMIT", "")
    if os.environ.get("TRIBUTARY_BUILT", "") != "1":
        return given or f"unknown (TRIBUTARY_BIN={GIVEN.get('bin', BIN)}; set TRIBUTARY_COMMIT to name it)"
    try:
        c = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "Sources", "Package.swift", "Package.resolved"],
                               capture_output=True, text=True).stdout.strip()
        return c + (" + uncommitted changes under Sources/" if dirty else "")
    except OSError:
        return "unknown"


def tool_versions():
    def first(argv):
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=10).stdout.strip().splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return "?"
    py = subprocess.run([sys.executable, "-c", "import aiohttp, orjson, platform; print(platform.python_version(), aiohttp.__version__, orjson.__version__)"],
                        capture_output=True, text=True).stdout.split()
    py = py + ["?"] * (3 - len(py))
    return (f"{first([BIN, '--version'])} (release), {first(['curl', '--version']).split(' (')[0]}, "
            f"{first(['jq', '--version'])}, Python {py[0]} + aiohttp {py[1]} + orjson {py[2]}, {nginx_version()}")


def nginx_version():
    exe = shutil.which("nginx") or "/usr/sbin/nginx"
    try:
        return subprocess.run([exe, "-v"], capture_output=True, text=True).stderr.strip().replace("nginx version: ", "")
    except OSError:
        return "nginx ?"


class Report:
    def __init__(self, mode, title):
        self.mode = mode
        self.lines = [f"## {title}", ""]
        self.load_before = loadavg()
        self.started = now_utc()
        self.warnings = []

    def header(self, extra, rounds=True, timed=True):
        # Counted instructions (timed=False) do not depend on the machine's load.
        busy = timed and float(self.load_before[0]) > 0.5
        self.lines += [
            f"- date: {self.started}; machine: {machine()}",
            f"- load average before: {' '.join(self.load_before)} (1, 5, 15 min)"
            + ("; **busy machine: the numbers are indicative only**" if busy else ""),
            f"- Tributary commit: {tributary_commit()}",
            f"- tools: {tool_versions()}",
        ] + ([f"- {RUNS} round(s), order alternating per round (ABCD, DCBA, BCDA, ADCB, ...), after {WARMUP} untimed run(s) of each tool; medians"]
             if rounds else []) + [f"- {e}" for e in extra] + [""]
        if busy:
            log(f"warning: load average {self.load_before[0]} before the runs: the machine is busy, the numbers are indicative only")

    def add(self, *lines):
        self.lines += list(lines)

    def warn(self, msg):
        self.warnings.append(msg)
        log(f"warning: {msg}")

    def finish(self):
        self.lines.append(f"Load average after: {' '.join(loadavg())}.")
        if self.warnings:
            self.lines += ["", "Warnings:"] + [f"- {w}" for w in self.warnings]
        text = "\n".join(self.lines) + "\n"
        write_results(f"{self.mode}-latest.md", text)
        log(f"wrote {os.path.join(RESULTS, self.mode + '-latest.md')}")
        return text


def med(samples, key):
    return statistics.median(s[key] for s in samples)


def per_round(samples, tool, peer, key="wall"):
    """The tool's `key` over the peer's in each round (runs of one round sit side by side), as
    "min..max": the spread a ratio of medians hides (issue 25 asks for every ratio with it)."""
    ratios = [s[key] / p[key] for s, p in zip(samples[tool], samples[peer]) if p[key] > 0]
    return f"{min(ratios):.2f}x..{max(ratios):.2f}x" if ratios else "—"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def every_run(samples, tools, fmt):
    out = ["Every run, in round order:"]
    for t in tools:
        out.append(f"- {t}: " + "; ".join(fmt(s) for s in samples[t]))
    notes = [(t, s["note"]) for t in tools for s in samples[t] if s.get("note")]
    if notes:
        out += ["", "Written to stderr by runs that succeeded (last line):"]
        out += [f"- {t}: `{n}`" for t, n in dict(notes).items()]
    return out


def run_rounds(tools, commands, outputs, server_pids, check_output, label):
    """Runs RUNS rounds of every tool in alternating order. commands: {tool: stages};
    outputs: {tool: path}; check_output(tool, path) -> error text or None."""
    samples = {t: [] for t in tools}
    for w in range(WARMUP):
        for t in round_order(tools, w):
            s = run_measured(commands[t], outputs[t], server_pids=server_pids)
            if s["rc"] != 0:
                die(f"{label}: {t} failed (exit {s['rc']}) in warm-up run {w + 1}:\n{s['stderr'][-3000:]}")
            log(f"{label} warm-up {w + 1}/{WARMUP} {t:<18} wall {s['wall']:.3f} s (not counted)")
    for r in range(RUNS):
        order = round_order(tools, r)
        load1 = loadavg()[0]
        for t in order:
            s = run_measured(commands[t], outputs[t], server_pids=server_pids)
            s["load"] = load1
            if s["rc"] != 0:
                die(f"{label}: {t} failed (exit {s['rc']}) in round {r + 1}:\n{s['stderr'][-3000:]}")
            problem = check_output(t, outputs[t])
            if problem:
                die(f"{label}: {t} in round {r + 1}: {problem}\n{s['stderr'][-2000:]}")
            if s["stderr"].strip():
                s["note"] = s["stderr"].strip().splitlines()[-1][:200]
                log(f"{t} wrote to stderr: {s['note']}")
            samples[t].append(s)
            log(f"{label} round {r + 1}/{RUNS} {t:<18} wall {s['wall']:.3f} s  CPU {s['cpu']:.2f} s  "
                f"RSS {s['rss_kib'] / 1024:.1f} MiB  server CPU {s['server_cpu']:.2f} s  (load {load1})")
        if r == 0:
            if KEEP_OUTPUT:
                for t in tools:
                    slug = re.sub(r"[^a-z0-9]+", "-", f"{label} {t}".lower()).strip("-")
                    shutil.copy(outputs[t], os.path.join(RESULTS, f"out-{slug}.jsonl"))
            yield "round1", samples
    yield "done", samples


def server_limited(samples):
    """The server's median share of a core during the tool's runs, and whether it is worth a
    warning: above SERVER_SHARE_WARN, and at least 0.05 s of server CPU (/proc counts in 10 ms
    ticks, so a short run's share means little)."""
    share = server_share(samples)
    return share, share > SERVER_SHARE_WARN and med(samples, "server_cpu") >= 0.05


def server_share(samples):
    """Median share of one core the server used during the tool's runs."""
    return statistics.median(s["server_cpu"] / s["wall"] if s["wall"] > 0 else 0 for s in samples)


# ---- mode: decode --------------------------------------------------------------------------

def mode_decode(scratch):
    pages = env_int("PAGES", 2000, 1, 9999)
    n = env_int("CONCURRENCY", 32, 1, 4096)
    per_item = 50
    expected = pages * per_item
    nginx = Nginx(scratch)
    try:
        urls = [f"{nginx.base}/page-{i:04d}.json" for i in range(1, pages + 1)]
        url_file = os.path.join(RESULTS, "decode-urls.txt")
        write_lines(url_file, urls)
        cfg_many = os.path.join(RESULTS, "decode-sources.json")
        cfg_one = os.path.join(RESULTS, "decode-urls.json")
        write_config(cfg_many, urls, n, n, one_source=False)
        write_config(cfg_one, urls, n, n, one_source=True)
        tools = [f"tributary {pages} src", "tributary 1 src", "aiohttp", "curl+jq", "curl only"]
        commands = {
            tools[0]: tributary_cmd(cfg_many),
            tools[1]: tributary_cmd(cfg_one),
            "aiohttp": aiohttp_cmd(url_file, n, n),
            "curl+jq": jq_cmd([f"{nginx.base}/page-[0001-{pages:04d}].json"], n),
            "curl only": [["curl", "-sS", "--no-progress-meter", "--fail", "--parallel", "--parallel-max", str(n),
                           f"{nginx.base}/page-[0001-{pages:04d}].json"]],
        }
        tools, commands = with_baseline(tools, commands)
        outputs = {t: os.path.join(scratch, f"out-decode-{i}.jsonl") for i, t in enumerate(tools)}
        corpus_bytes = sum(os.path.getsize(os.path.join(CORPUS, f"page-{i:04d}.json")) for i in range(1, pages + 1))

        def check(tool, path):
            if tool == "curl only":
                size = os.path.getsize(path)
                return None if size == corpus_bytes else f"downloaded {size} bytes, expected {corpus_bytes}"
            lines = count_lines(path)
            return None if lines == expected else f"wrote {lines} items, expected {expected}"

        rep = Report("decode", f"decode: {pages} pages x {per_item} items (json source) over loopback HTTP/1.1 from nginx")
        rep.header([f"corpus: {pages} pages, {corpus_bytes / 1e6:.1f} MB ({corpus_bytes / pages / 1000:.1f} KB a page), "
                    f"{expected} items; {n} requests in flight for every tool (http.concurrency = per_host = {n})"])
        same = "not checked"
        for phase, samples in run_rounds(tools, commands, outputs, nginx.pids, check, "decode"):
            if phase == "round1":
                _, same = compare_outputs({t: (outputs[t], unbased(t) == tools[0]) for t in tools if t != "curl only"}, "aiohttp")
    finally:
        nginx.stop()
    ref = med(samples["aiohttp"], "wall")
    rows = []
    for t in tools:
        w = med(samples[t], "wall")
        share, limited = server_limited(samples[t])
        if limited:
            rep.warn(f"nginx used {share:.0%} of a core during {t}'s runs (median): the server may be limiting them")
        peer = t == "aiohttp" or t == "curl only"
        rows.append([t, f"{w:.3f}", f"{med(samples[t], 'cpu'):.2f}", f"{med(samples[t], 'rss_kib') / 1024:.1f}",
                     "—" if t == "curl only" else f"{expected / w:,.0f}", f"{ref / w:.2f}x",
                     "—" if peer else per_round(samples, t, "aiohttp"), "—" if peer else per_round(samples, t, "aiohttp", "cpu"),
                     f"{med(samples[t], 'server_cpu'):.2f}", f"{share:.0%}"])
    rep.add(*table(["tool", "wall s", "CPU s", "peak RSS MiB", "items/s", "speed vs aiohttp", "wall / aiohttp's per round",
                    "CPU / aiohttp's per round", "nginx CPU s", "nginx share of a core"], rows))
    rep.add("",
            f"Same items from every tool (sorted, `fetched` removed; in the {pages}-source config `source` set to bench): {same}.",
            "speed vs aiohttp = aiohttp's median wall / the tool's (higher is faster; 2.00x = half the time). "
            "Per round: the tool's wall (CPU) over aiohttp's in the same round, lowest..highest (lower is better).",
            "CPU s = user + system of the tool (curl+jq: both). `curl only` downloads the pages and throws them away: "
            "the floor that the server and loopback allow, not a peer.",
            f"nginx share = nginx CPU s / the tool's wall s, median over runs; above {SERVER_SHARE_WARN:.0%} the server may be the limit.",
            "")
    rep.add(*every_run(samples, tools, lambda s: f"{s['wall']:.3f} s / {s['cpu']:.2f} s CPU / {s['rss_kib'] / 1024:.0f} MiB (load {s['load']})"), "")
    return rep.finish()


# ---- mode: fetch ---------------------------------------------------------------------------

def mode_fetch(scratch):
    count = env_int("FETCH_URLS", 1000, 1, 99999)
    delay = env_float("FETCH_DELAY", 0.1)
    size = env_int("FETCH_SIZE", 25600, 600, 16 * 1024 * 1024)
    levels = [int(x) for x in os.environ.get("FETCH_CONCURRENCY", "50 200").split()]
    if not levels or any(not 1 <= x <= 4096 for x in levels):
        die("FETCH_CONCURRENCY must list integers 1..4096")
    try:
        item_modes = [int(x) for x in os.environ.get("FETCH_ITEMS", "1 45").split()]
    except ValueError:
        item_modes = []
    if not item_modes or any(not 1 <= x <= 1000 for x in item_modes):
        die("FETCH_ITEMS must list integers 1..1000 (items per body)")
    rep = Report("fetch", f"fetch: {count} URLs, {delay * 1000:g} ms server delay, {size} bytes each, over loopback HTTP/1.1")
    rep.header([f"server: bench/delay_server.py (asyncio{' + uvloop' if _has_uvloop() else ''}); each body a JSON document "
                f"of exactly {size} bytes: with 1 item, one item and a padding string; with K items, K search.list-like "
                f"items (distinct ids, gen_corpus.py's text: non-ASCII, HTML entities, escapes) and a few bytes of padding",
                f"items per body: {', '.join(map(str, item_modes))} (FETCH_ITEMS)",
                f"in flight: {', '.join(map(str, levels))} (http.concurrency = per_host = N; curl --parallel-max N; aiohttp limit = limit_per_host = N)"])
    w = len(str(count))
    for per_body in item_modes:
        srv = DelayServer(delay, size, per_body, prebuild=count)
        try:
            _fetch_levels(rep, scratch, srv, count, delay, size, levels, per_body, w)
        finally:
            srv.stop()
    rep.add("speed vs curl = curl's median wall / the tool's (higher is faster); per round: the tool's wall over curl's in "
            "the same round, lowest..highest (lower is better); CPU vs curl = the tool's CPU / curl's. "
            "curl only downloads (bodies to a file); Tributary and aiohttp also parse each body and write its items. "
            "CPU µs per item = the tool's CPU / (URLs x items per body).",
            "server share = the server's CPU s / the tool's wall s; the floor is what a client with N connections "
            "cannot beat, whatever it does.", "")
    return rep.finish()


def _fetch_levels(rep, scratch, srv, count, delay, size, levels, per_body, w):
    """The fetch rounds at every level of concurrency against one delay server (one FETCH_ITEMS value)."""
    items = count * per_body
    urls = [f"{srv.base}/f/{i:0{w}d}.json" for i in range(1, count + 1)]
    url_file = os.path.join(RESULTS, "fetch-urls.txt")
    write_lines(url_file, urls)
    for n in levels:
        floor = -(-count // n) * delay
        cfg_one = os.path.join(RESULTS, f"fetch-{n}-urls.json")
        cfg_many = os.path.join(RESULTS, f"fetch-{n}-sources.json")
        write_config(cfg_one, urls, n, n, one_source=True)
        write_config(cfg_many, urls, n, n, one_source=False)
        tools = ["tributary 1 src", f"tributary {count} src", "curl", "aiohttp"]
        commands = {
            tools[0]: tributary_cmd(cfg_one),
            tools[1]: tributary_cmd(cfg_many),
            "curl": [["curl", "-sS", "--no-progress-meter", "--fail", "--parallel", "--parallel-immediate", "--parallel-max", str(n),
                      f"{srv.base}/f/[{1:0{w}d}-{count}].json"]],
            "aiohttp": aiohttp_cmd(url_file, n, n),
        }
        tools, commands = with_baseline(tools, commands)
        outputs = {t: os.path.join(scratch, f"out-fetch-{per_body}-{n}-{i}.jsonl") for i, t in enumerate(tools)}

        def check(tool, path):
            if tool == "curl":
                got = os.path.getsize(path)
                return None if got == count * size else f"downloaded {got} bytes, expected {count * size}"
            lines = count_lines(path)
            return None if lines == items else f"wrote {lines} items, expected {items} ({count} x {per_body})"

        same = "not checked"
        label = f"fetch {per_body} item{'s' if per_body > 1 else ''} N={n}"
        for phase, samples in run_rounds(tools, commands, outputs, srv.pids, check, label):
            if phase == "round1":
                _, same = compare_outputs({t: (outputs[t], unbased(t) == f"tributary {count} src") for t in tools if t != "curl"}, "aiohttp")
        ref = med(samples["curl"], "wall")
        ref_cpu = med(samples["curl"], "cpu")
        rows = []
        for t in tools:
            wl = med(samples[t], "wall")
            cpu = med(samples[t], "cpu")
            share, limited = server_limited(samples[t])
            if limited:
                rep.warn(f"{label}: the delay server used {share:.0%} of a core during {t}'s runs (median)")
            rows.append([t, f"{wl:.3f}", f"{wl / floor:.2f}", f"{cpu * 1000 / count:.3f}", f"{cpu * 1e6 / items:.1f}",
                         f"{med(samples[t], 'rss_kib') / 1024:.1f}",
                         f"{ref / wl:.2f}x", "—" if t == "curl" else per_round(samples, t, "curl"),
                         f"{cpu / ref_cpu:.1f}x" if ref_cpu > 0 else "—",
                         f"{med(samples[t], 'server_cpu'):.2f}", f"{share:.0%}"])
        curl_ratio = ref / floor
        verdict = ("curl reached the floor: the server is not the bottleneck"
                   if curl_ratio <= 1.25 else
                   "**curl did not reach the floor: the server or the machine limits every tool here**")
        if curl_ratio > 1.25:
            rep.warn(f"{label}: curl's median wall {ref:.3f} s is {curl_ratio:.2f}x the floor {floor:.2f} s")
        rep.add(f"### {per_body} item{'s' if per_body > 1 else ''} per body, {n} in flight", "",
                f"Floor: ceil({count}/{n}) x {delay:g} s = {floor:.2f} s. curl's median wall is {curl_ratio:.2f}x the floor: {verdict}.", "")
        rep.add(*table(["tool", "wall s", "wall / floor", "CPU ms per request", "CPU µs per item", "peak RSS MiB", "speed vs curl",
                        "wall / curl's per round", "CPU vs curl", "server CPU s", "server share of a core"], rows))
        rep.add("", f"Same items from tributary and aiohttp (sorted, `fetched` removed): {same}. "
                    f"Items per run: {items} ({count} x {per_body}), checked in every run.", "")
        rep.add(*every_run(samples, tools, lambda s: f"{s['wall']:.3f} s / {s['cpu'] * 1000:.0f} ms CPU (load {s['load']})"), "")


def _has_uvloop():
    return subprocess.run([sys.executable, "-c", "import uvloop"], capture_output=True).returncode == 0


# ---- mode: many ----------------------------------------------------------------------------

def mode_many(scratch):
    count = env_int("MANY", 10000, 2, 99999)
    n = env_int("CONCURRENCY", 32, 1, 4096)
    files = [os.path.join(CORPUS_MANY, f"page-{i:05d}.json") for i in range(1, count + 1)]
    missing = [f for f in files if not os.path.exists(f)]
    if missing:
        die(f"{len(missing)} pages missing in {CORPUS_MANY} (bench/run.sh generates them)")
    total_bytes = sum(os.path.getsize(f) for f in files)
    nginx = Nginx(scratch)
    try:
        urls = [f"{nginx.base}/many/page-{i:05d}.json" for i in range(1, count + 1)]
        url_file = os.path.join(RESULTS, "many-urls.txt")
        write_lines(url_file, urls)
        curl_cfg = os.path.join(RESULTS, "many-curl.cfg")
        write_lines(curl_cfg, [f'url = "{u}"' for u in urls])
        cfg_many = os.path.join(RESULTS, "many-sources.json")
        cfg_base = os.path.join(RESULTS, "many-baseline.json")
        write_config(cfg_many, urls, n, n, one_source=False)
        write_config(cfg_base, urls[:1], n, n, one_source=False)
        tools = ["tributary 1 src", f"tributary {count} src", "curl", "aiohttp"]
        commands = {
            tools[0]: tributary_cmd(cfg_base),
            tools[1]: tributary_cmd(cfg_many),
            "curl": [["curl", "-sS", "--no-progress-meter", "--fail", "--parallel", "--parallel-max", str(n), "-K", curl_cfg]],
            "aiohttp": aiohttp_cmd(url_file, n, n),
        }
        tools, commands = with_baseline(tools, commands)
        outputs = {t: os.path.join(scratch, f"out-many-{i}.jsonl") for i, t in enumerate(tools)}

        def check(tool, path):
            if tool == "curl":
                got = os.path.getsize(path)
                return None if got == total_bytes else f"downloaded {got} bytes, expected {total_bytes}"
            want = 1 if unbased(tool) == "tributary 1 src" else count
            lines = count_lines(path)
            return None if lines == want else f"wrote {lines} items, expected {want}"

        rep = Report("many", f"many: {count} json sources of one small page each, over loopback HTTP/1.1 from nginx")
        rep.header([f"pages: {count} one-item pages, {total_bytes / count:.0f} bytes on average; {n} requests in flight "
                    f"(http.concurrency = per_host = {n}; curl --parallel-max {n} -K <url file>; aiohttp limit {n})",
                    "baseline: the same binary with a config of one of these sources"])
        same = "not checked"
        for phase, samples in run_rounds(tools, commands, outputs, nginx.pids, check, "many"):
            if phase == "round1":
                lots = f"tributary {count} src"
                _, same = compare_outputs({lots: (outputs[lots], True), "aiohttp": (outputs["aiohttp"], False)}, "aiohttp")
    finally:
        nginx.stop()
    ref = med(samples["curl"], "wall")
    base_rss = {"": med(samples["tributary 1 src"], "rss_kib")}
    if BASE_BIN:
        base_rss[BASE_SUFFIX] = med(samples["tributary 1 src" + BASE_SUFFIX], "rss_kib")
    rows = []
    for t in tools:
        wl = med(samples[t], "wall")
        rss = med(samples[t], "rss_kib")
        per = "—"
        if unbased(t) == f"tributary {count} src":
            per = f"{(rss - base_rss[t[len(unbased(t)):]]) / (count - 1):.1f}"
        share, limited = server_limited(samples[t])
        if limited:
            rep.warn(f"nginx used {share:.0%} of a core during {t}'s runs (median)")
        compared = unbased(t) not in ("tributary 1 src", "curl")
        rows.append([t, f"{wl:.3f}", f"{med(samples[t], 'cpu'):.2f}", f"{rss / 1024:.1f}", per,
                     "—" if unbased(t) == "tributary 1 src" else f"{ref / wl:.2f}x",
                     per_round(samples, t, "curl") if compared else "—", per_round(samples, t, "curl", "cpu") if compared else "—",
                     f"{share:.0%}"])
    rep.add(*table(["tool", "wall s", "CPU s", "peak RSS MiB", "RSS KiB per source above baseline", "speed vs curl",
                    "wall / curl's per round", "CPU / curl's per round", "nginx share of a core"], rows))
    rep.add("",
            f"Same items from tributary and aiohttp (sorted, `fetched` removed, `source` set to bench): {same}.",
            f"RSS per source = (peak RSS with {count} sources - peak RSS with 1 source) / {count - 1}, medians.",
            "speed vs curl = curl's median wall / the tool's (higher is faster). curl only downloads; the others also map and write items. "
            "Per round: the tool's wall (CPU) over curl's in the same round, lowest..highest (lower is better).",
            "")
    rep.add(*every_run(samples, tools, lambda s: f"{s['wall']:.3f} s / {s['rss_kib'] / 1024:.1f} MiB (load {s['load']})"), "")
    return rep.finish()


# ---- mode: watch ---------------------------------------------------------------------------

def proc_rss_kib(pid, key="VmRSS"):
    """VmRSS (or RssAnon, RssFile: the anonymous memory, and the file pages mapped, such as the
    SQLite state's mmap) of a process, KiB."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def proc_mapped_kib(pid, prefix):
    """Resident KiB of the mappings of files whose path starts with `prefix` (/proc/<pid>/smaps):
    the SQLite state's mmap of its database (and of its -shm) in the watch mode."""
    total, inside = 0, False
    try:
        with open(f"/proc/{pid}/smaps") as f:
            for line in f:
                head = line.split(None, 5)
                if head and "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
                    inside = len(head) == 6 and head[5].strip().startswith(prefix)
                elif inside and line.startswith("Rss:"):
                    total += int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return total


def watch_sample(pid, nginx_pids, jsonl, state):
    return {"t": time.time(), "cpu": proc_cpu_seconds([pid]), "rss": proc_rss_kib(pid), "hwm": proc_rss_kib(pid, "VmHWM"), "anon": proc_rss_kib(pid, "RssAnon"),
            "file": proc_rss_kib(pid, "RssFile"), "state": proc_mapped_kib(pid, state),
            "state_size": os.path.getsize(state) if os.path.exists(state) else 0, "nginx": proc_cpu_seconds(nginx_pids),
            "lines": count_lines(jsonl) if os.path.exists(jsonl) else 0, "load": loadavg()[0]}


def read_access_log(path):
    """[(epoch seconds, status, user agent, uri)] from the watch mode's nginx log."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 4:
                try:
                    out.append((float(parts[0]), parts[1], " ".join(parts[2:-1]), parts[-1]))
                except ValueError:
                    pass
    return out


def burst_stats(lines):
    """Requests, 200s, 304s, others, first and last time of a list of access log lines."""
    st = {"requests": len(lines), "200": 0, "304": 0, "other": 0, "first": None, "last": None}
    for t, status, _, _ in lines:
        key = status if status in ("200", "304") else "other"
        st[key] += 1
        st["first"] = t if st["first"] is None else min(st["first"], t)
        st["last"] = t if st["last"] is None else max(st["last"], t)
    return st


def mode_watch(scratch):
    """`tributary watch` on MANY (default 10,000) json sources with a WATCH_INTERVAL (60 s)
    interval and no jitter, against nginx (ETag and Last-Modified on every page, 304 to a
    matching conditional request), for WATCH_CYCLES (10) cycles; beside it, curl doing the same
    conditional requests (--etag-compare/--etag-save, one etag file per URL) once per cycle, half
    an interval after each of Tributary's cycles: both are idle between their bursts, so they
    share the ten minutes without meeting (checked from nginx's access log)."""
    count = env_int("MANY", 10000, 2, 99999)
    interval = env_float("WATCH_INTERVAL", 60.0)
    cycles = env_int("WATCH_CYCLES", 10, 2, 1000)
    n = env_int("CONCURRENCY", 32, 1, 4096)
    if interval < 2:
        die("WATCH_INTERVAL must be at least 2 (seconds)")
    files = [os.path.join(CORPUS_MANY, f"page-{i:05d}.json") for i in range(1, count + 1)]
    missing = [f for f in files if not os.path.exists(f)]
    if missing:
        die(f"{len(missing)} pages missing in {CORPUS_MANY} (bench/run.sh generates them)")
    wdir = os.path.join(scratch, "watch")
    etags = os.path.join(wdir, "etags")
    os.makedirs(etags)
    access = os.path.join(wdir, "access.log")
    nginx = Nginx(scratch, access_log=access)
    proc = None
    rep = Report("watch", f"watch: {count} json sources every {interval:g} s (no jitter) against nginx answering 304, "
                          f"{cycles} cycles, beside curl --etag-compare/--etag-save")
    try:
        urls = [f"{nginx.base}/many/page-{i:05d}.json" for i in range(1, count + 1)]
        cfg_path = os.path.join(RESULTS, "watch-sources.json")
        state = os.path.join(wdir, "state.sqlite")
        jsonl = os.path.join(wdir, "items.jsonl")
        cfg = {"$comment": "generated by bench/harness.py (watch mode); the URLs point at a loopback server that is gone after the run",
               "http": {"concurrency": n, "per_host": n},
               "state": {"path": state},
               "defaults": {"interval": f"{interval:g}s", "jitter": "0s"},
               "sources": [{"name": f"s{i:05d}", "type": "json", "url": u, "id_prefix": "bench", "items": "items", "fields": FIELDS}
                           for i, u in enumerate(urls, 1)],
               "sinks": [{"type": "jsonl", "path": jsonl}]}
        save_config(cfg_path, cfg)
        curl_cfg = os.path.join(RESULTS, "watch-curl.cfg")
        sections = []
        for i, u in enumerate(urls, 1):
            e = os.path.join(etags, f"{i:05d}")
            sections.append(f'url = "{u}"\netag-compare = "{e}"\netag-save = "{e}"')
        with open(curl_cfg, "w") as f:
            f.write("\nnext\n".join(sections) + "\n")
        curl_cmd = [["curl", "-sS", "--no-progress-meter", "--fail", "--parallel", "--parallel-max", str(n), "-K", curl_cfg]]
        curl_out = os.path.join(wdir, "curl.out")
        rep.header([f"pages: the many corpus ({count} one-item pages of about "
                    f"{sum(os.path.getsize(f) for f in files) / count:.0f} bytes) from nginx, which sends ETag and Last-Modified "
                    f"and answers 304 to a matching If-None-Match / If-Modified-Since; access log on (one line a request)",
                    f"tributary: `tributary watch -c results/watch-sources.json --quiet`: {count} json sources, interval {interval:g}s, "
                    f"`defaults.jitter: \"0s\"`, http.concurrency = per_host = {n}, a SQLite state file (validators kept), "
                    f"a jsonl sink to a file; stopped with SIGTERM after {cycles} cycles",
                    f"curl: `curl --parallel --parallel-max {n} -K results/watch-curl.cfg`, one section per URL with "
                    f"`etag-compare` and `etag-save` of its own etag file; run k starts at (k - 0.5) x {interval:g} s (Tributary's "
                    f"sources are first due at 0 s, so if a cycle of Tributary's lasts less than half an interval the tools never meet)",
                    "CPU: tributary's utime + stime from /proc/<pid>/stat (10 ms ticks), sampled right before each of curl's runs, so "
                    "window k holds about one request per source (the access log gives the exact count); curl's from wait4 (one "
                    "curl process per cycle, start-up and reading the config included); RSS: VmRSS from /proc/<pid>/status at the same samples"],
                   rounds=False)
        logf = open(os.path.join(wdir, "watch.log"), "wb")
        env = dict(os.environ, XDG_STATE_HOME=os.path.join(wdir, "xdg"))
        t0 = time.time()
        proc = start_server([BIN, "watch", "-c", cfg_path, "--quiet"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=logf, env=env, cwd=wdir)
        log(f"watch: tributary watch started (pid {proc.pid}); {cycles} cycles of {interval:g} s, curl half an interval after each")
        pid = proc.pid
        samples = [{"t": t0, "cpu": 0.0, "rss": 0, "anon": 0, "file": 0, "nginx": proc_cpu_seconds(nginx.pids), "lines": 0, "load": loadavg()[0]}]
        curl_runs = []
        for k in range(1, cycles + 1):
            target = t0 + (k - 0.5) * interval
            while time.time() < target:
                if proc.poll() is not None:
                    die(f"watch: tributary watch exited early ({proc.returncode}); see {wdir}/watch.log")
                time.sleep(min(0.5, max(0.0, target - time.time())))
            smp = watch_sample(pid, nginx.pids, jsonl, state)
            samples.append(smp)
            start = time.time()
            c = run_measured(curl_cmd, curl_out, cwd=wdir, server_pids=nginx.pids)
            c["start"], c["end"] = start, time.time()
            c["load"] = smp["load"]
            if c["rc"] != 0:
                die(f"watch: curl failed (exit {c['rc']}) in cycle {k}:\n{c['stderr'][-2000:]}")
            c["bytes"] = os.path.getsize(curl_out)
            curl_runs.append(c)
            log(f"watch cycle {k}/{cycles}: tributary CPU {smp['cpu'] - samples[-2]['cpu']:.2f} s, RSS {smp['rss'] / 1024:.1f} MiB "
                f"(the state's mapped database {smp['state'] / 1024:.1f} MiB), {smp['lines']} items written; curl {c['wall']:.2f} s wall, {c['cpu']:.2f} s CPU (load {smp['load']})")
        # A source is due an interval after its last run, so Tributary's cycles drift later when
        # a cycle takes long: wait (at most two more intervals) until every URL has had its
        # `cycles` requests, then take a last sample and stop it.
        seen, offset = {}, 0
        deadline = time.time() + 2 * interval
        while time.time() < deadline and proc.poll() is None:
            with open(access, "rb") as f:
                f.seek(offset)
                chunk = f.read()
            cut = chunk.rfind(b"\n") + 1
            offset += cut
            for line in chunk[:cut].splitlines():
                parts = line.split()
                if len(parts) >= 4 and parts[2].startswith(b"tributary"):
                    seen[parts[-1]] = seen.get(parts[-1], 0) + 1
            if len(seen) >= count and min(seen.values()) >= cycles:
                break
            time.sleep(1)
        end = watch_sample(pid, nginx.pids, jsonl, state)
        log(f"watch: end at {end['t'] - t0:.0f} s: tributary CPU {end['cpu'] - samples[-1]['cpu']:.2f} s since the last sample, "
            f"RSS {end['rss'] / 1024:.1f} MiB")
        proc.send_signal(signal.SIGTERM)
        try:
            status = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            status = "still running 60 s after SIGTERM (killed)"
        _children.discard(pid)
        logf.close()
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
        nginx.stop()
    with open(os.path.join(wdir, "watch.log"), errors="replace") as f:
        watch_log = f.read().strip()

    # Who asked what, when. Tributary's cycle k of a URL is its k-th request of that URL (a
    # cycle of 10,000 sources need not be a burst: it lasts as long as Tributary takes); its CPU
    # is counted per window between two samples (one interval each, so about one request per
    # source in the steady state). curl's cycle k is its k-th run.
    entries = read_access_log(access)
    trib = sorted((e for e in entries if e[2].startswith("tributary")), key=lambda e: e[0])
    curl = [e for e in entries if e[2].startswith("curl/")]
    others = len(entries) - len(trib) - len(curl)
    nth = {}
    by_cycle = {}
    for e in trib:
        k = nth[e[3]] = nth.get(e[3], 0) + 1
        by_cycle.setdefault(k, []).append(e)
    trib_cycles = [burst_stats(by_cycle.get(k, [])) for k in range(1, max(by_cycle, default=0) + 1)]
    complete = [k for k, st in enumerate(trib_cycles, 1) if st["requests"] == count]
    windows = [burst_stats([e for e in trib if samples[k - 1]["t"] < e[0] <= samples[k]["t"]]) for k in range(1, cycles + 1)]
    slack = 0.01  # nginx's $msec is the end of the request, in ms
    curl_cycles = [burst_stats([e for e in curl if c["start"] - slack <= e[0] <= c["end"] + slack]) for c in curl_runs]
    curl_outside = len(curl) - sum(st["requests"] for st in curl_cycles)
    overlap = sum(1 for e in trib if any(c["start"] - slack <= e[0] <= c["end"] + slack for c in curl_runs))

    rows = []
    for k in range(1, cycles + 1):
        smp, prev, c = samples[k], samples[k - 1], curl_runs[k - 1]
        win, cc = windows[k - 1], curl_cycles[k - 1]
        t_cpu = smp["cpu"] - prev["cpu"]
        # nginx CPU in Tributary's part of the window: from the end of curl's previous run to this sample.
        ng_t = smp["nginx"] - prev["nginx"] - (curl_runs[k - 2]["server_cpu"] if k > 1 else 0)
        t_part = smp["t"] - (curl_runs[k - 2]["end"] if k > 1 else prev["t"])
        c_burst = (cc["last"] - cc["first"]) if cc["requests"] else 0
        rows.append([str(k), f"{prev['t'] - t0:.0f}..{smp['t'] - t0:.0f}",
                     f"{win['requests']} ({win['304']} x 304)", f"{t_cpu:.2f}",
                     f"{t_cpu * 1e6 / win['requests']:.0f}" if win["requests"] else "—",
                     f"{smp['rss'] / 1024:.1f}", str(smp["lines"]),
                     f"{ng_t:.2f} ({ng_t / t_part:.0%})" if t_part > 0 else f"{ng_t:.2f}",
                     f"{cc['requests']} ({cc['304']} x 304)", f"{c['wall']:.2f}", f"{c['cpu']:.2f}",
                     f"{c['cpu'] * 1e6 / cc['requests']:.0f}" if cc["requests"] else "—",
                     f"{c['server_cpu']:.2f} ({c['server_cpu'] / c_burst:.0%})" if c_burst > 0 else f"{c['server_cpu']:.2f}",
                     smp["load"]])
    rows.append(["end", f"{samples[cycles]['t'] - t0:.0f}..{end['t'] - t0:.0f}", "—", f"{end['cpu'] - samples[cycles]['cpu']:.2f}", "—",
                 f"{end['rss'] / 1024:.1f}", str(end["lines"]), "—", "—", "—", "—", "—", "—", end["load"]])
    rep.add("Per window (tributary: from one sample to the next, one interval; `end`: from the last sample until Tributary's "
            f"cycle {cycles} was complete in the access log, at most two more intervals, then SIGTERM; curl: its run of that cycle):", "")
    rep.add(*table(["k", "tributary window s", "tributary requests", "tributary CPU s", "CPU µs per request", "RSS MiB",
                    "items written", "nginx CPU s (share of a core)", "curl requests", "curl wall s", "curl CPU s",
                    "curl CPU µs per request", "nginx CPU s in curl's run (share)", "load (1 min)"], rows))
    steady = range(2, cycles + 1)
    t_cpu = [samples[k]["cpu"] - samples[k - 1]["cpu"] for k in steady]
    t_per = [(samples[k]["cpu"] - samples[k - 1]["cpu"]) / windows[k - 1]["requests"] for k in steady if windows[k - 1]["requests"]]
    c_cpu = [curl_runs[k - 1]["cpu"] for k in steady]
    c_per = [curl_runs[k - 1]["cpu"] / curl_cycles[k - 1]["requests"] for k in steady if curl_cycles[k - 1]["requests"]]
    t_med, c_med = statistics.median(t_cpu), statistics.median(c_cpu)
    tp_med, cp_med = (statistics.median(t_per) if t_per else 0), (statistics.median(c_per) if c_per else 0)
    rss2, rss_last = samples[2]["rss"], end["rss"]
    rss_series = [s_["rss"] for s_ in samples[1:]] + [end["rss"]]
    anon_series = ", ".join(f"{s_['anon'] / 1024:.1f}" for s_ in samples[1:] + [end])
    file_series = ", ".join(f"{s_['file'] / 1024:.1f}" for s_ in samples[1:] + [end])
    growth = rss_last - rss2
    # The state's mmap (PRAGMA mmap_size): file pages of the database, resident as they are
    # read, at most the file's size; apart from them, the process's own memory.
    own = [s_["rss"] - s_["state"] for s_ in samples[1:] + [end]]
    own_growth = own[-1] - own[1]
    state_series = ", ".join(f"{s_['state'] / 1024:.1f}" for s_ in samples[1:] + [end])
    # VmHWM: the highest RSS so far, inside the cycles too (the samples fall between them).
    hwm_series = ", ".join(f"{s_['hwm'] / 1024:.1f}" for s_ in samples[1:] + [end])
    hwm_growth = end["hwm"] - samples[2]["hwm"]
    size_series = ", ".join(f"{s_['state_size'] / 1048576:.1f}" for s_ in samples[1:] + [end])
    spans = [st["last"] - st["first"] for st in trib_cycles if st["requests"]]
    ng_total = end["nginx"] - samples[0]["nginx"]
    total_wall = end["t"] - t0
    rep.add("",
            f"**CPU per cycle, windows 2..{cycles} (304s), median: tributary {t_med:.2f} s per {interval:g} s window "
            f"({tp_med * 1e6:.0f} µs per request), curl {c_med:.2f} s per run ({cp_med * 1e6:.0f} µs per request): "
            f"{tp_med / cp_med if cp_med else 0:.1f}x curl's CPU per request** (tributary {min(t_cpu):.2f}..{max(t_cpu):.2f} s "
            f"per window, curl {min(c_cpu):.2f}..{max(c_cpu):.2f} s per run). Window 1 (start-up, 200s, items written): "
            f"tributary {samples[1]['cpu']:.2f} s for {windows[0]['requests']} requests; curl's first run (200s) {curl_runs[0]['cpu']:.2f} s.",
            "",
            f"**RSS from sample 2 to the end: {rss2 / 1024:.1f} MiB to {rss_last / 1024:.1f} MiB, {growth:+d} KiB** "
            f"({'within' if growth <= 1024 else 'over'} the goal of at most 1 MiB); the highest sample of window 1 or 2 "
            f"{max(rss_series[:2]) / 1024:.1f} MiB, the highest after {max(rss_series[2:]) / 1024:.1f} MiB "
            f"({max(rss_series[2:]) - max(rss_series[:2]):+d} KiB); every sample: {', '.join(f'{r / 1024:.1f}' for r in rss_series)} MiB; "
            f"of which anonymous (RssAnon): {anon_series} MiB, "
            f"file pages (RssFile: the binary, libraries, the SQLite state's mmap): {file_series} MiB; "
            f"of RssFile, the state's database mapped (smaps): {state_series} MiB, the database file {size_series} MiB.",
            "",
            f"**RSS apart from the state's mapped database (anonymous memory, the binary and libraries), sample 2 to the end: "
            f"{own[1] / 1024:.1f} MiB to {own[-1] / 1024:.1f} MiB, {own_growth:+d} KiB** "
            f"({'within' if own_growth <= 1024 else 'over'} 1 MiB); every sample: {', '.join(f'{r / 1024:.1f}' for r in own)} MiB.",
            "",
            f"**Peak RSS so far (VmHWM, which covers the cycles themselves, not only the idle moments the samples fall in), "
            f"sample 2 to the end: {hwm_growth:+d} KiB**; every sample: {hwm_series} MiB.",
            "",
            "Tributary's cycles, from nginx's access log (cycle k of a URL = Tributary's k-th request of it): "
            + "; ".join(f"{k}: {st['requests']} requests ({st['200']} x 200, {st['304']} x 304{', ' + str(st['other']) + ' other' if st['other'] else ''}), "
                        f"{st['first'] - t0:.1f}..{st['last'] - t0:.1f} s" for k, st in enumerate(trib_cycles, 1)) + ".",
            "",
            f"A cycle of Tributary (first to last request) lasted {statistics.median(spans) if spans else 0:.1f} s (median); "
            f"curl's run {statistics.median([c['wall'] for c in curl_runs[1:]]):.2f} s (median wall, cycles 2..{cycles}). "
            f"nginx over the whole run: {ng_total:.2f} s of CPU in {total_wall:.0f} s ({ng_total / total_wall:.1%} of a core).",
            "",
            "Checks from nginx's access log:",
            f"- Tributary's complete cycles (every one of the {count} URLs requested): {len(complete)} "
            f"({', '.join(map(str, complete)) or 'none'}); each of the first {min(cycles, len(trib_cycles))} cycles {count} requests: "
            f"{'yes' if all(st['requests'] == count for st in trib_cycles[:cycles]) and len(trib_cycles) >= cycles else 'no'}",
            f"- Tributary: cycle 1 answered 200, every later request 304: "
            f"{'yes' if trib_cycles and trib_cycles[0]['200'] == count and all(st['304'] == st['requests'] for st in trib_cycles[1:]) else 'no'}",
            f"- curl: {count} requests each run: {'yes' if all(st['requests'] == count for st in curl_cycles) else 'no'} "
            f"({', '.join(str(st['requests']) for st in curl_cycles)}); run 1 answered 200 and every later one 304: "
            f"{'yes' if curl_cycles[0]['200'] == count and all(st['304'] == count for st in curl_cycles[1:]) else 'no'}; "
            f"{curl_outside} of curl's requests outside its runs",
            f"- the tools apart: {'yes' if overlap == 0 else 'no'} ({overlap} of Tributary's {len(trib)} requests fell inside one of "
            f"curl's runs; {others} requests from other user agents)",
            f"- items written by tributary: {end['lines']} "
            f"({'all in window 1 or 2, nothing new after' if all(samples[k]['lines'] == count for k in steady) else 'see the table'}); "
            f"curl downloaded {curl_runs[0]['bytes']} bytes in its first run and {max(c['bytes'] for c in curl_runs[1:])} at most in a later one",
            f"- tributary watch after SIGTERM: {status} (143 expected)",
            "")
    if len(trib_cycles) < cycles or any(st["requests"] != count for st in trib_cycles[:cycles]):
        rep.warn(f"Tributary did not complete {cycles} cycles of {count} requests (see its cycles above)")
    if any(st["304"] != st["requests"] for st in trib_cycles[1:]) or any(st["304"] != count for st in curl_cycles[1:]):
        rep.warn("not every request after the first cycle was answered 304")
    if overlap:
        rep.warn(f"{overlap} of Tributary's requests fell inside curl's runs: the tools ran at the same time")
        rep.add(f"The tools met: a cycle of Tributary lasted {statistics.median(spans) if spans else 0:.1f} s, more than the "
                f"{interval / 2:g} s from its cycle's start to curl's. Each tool's CPU is its own process's and stands; the "
                "walls and nginx's shares are those of two tools running at once.", "")
    if growth > 1024:
        rep.warn(f"tributary's RSS grew {growth} KiB from sample 2 to the end (goal: at most 1024)")
    if status != 143:
        rep.warn(f"tributary watch ended with {status}, not 143, after SIGTERM")
    if watch_log:
        tail = watch_log.splitlines()
        rep.add(f"tributary's stderr ({len(tail)} lines, --quiet), last lines:", "", "```", *tail[-5:], "```", "")
    return rep.finish()


# ---- mode: startup -------------------------------------------------------------------------

def mode_startup(scratch):
    reps = env_int("STARTUP_REPS", 20, 1, 10000)
    demo = os.path.join(ROOT, "Sources-config", "demo.json")
    tools = ["tributary --version", "tributary check demo", "jq -n 1"]
    argv = {tools[0]: [BIN, "--version"], tools[1]: [BIN, "check", "-c", demo], "jq -n 1": ["jq", "-n", "1"]}
    if BASE_BIN:
        tools, wrapped = with_baseline(tools, {t: [a] for t, a in argv.items()})
        argv = {t: a[0] for t, a in wrapped.items()}
    rep = Report("startup", "startup: process start to exit")
    rep.header([f"each round runs each command {reps} times in a row, straight from the harness (no wrapper), "
                f"then once under GNU time for its peak RSS; the table gives the median over all "
                f"{RUNS * reps} runs of a command, and the spread of the per-round medians",
                f"`tributary check demo` = `tributary check -c Sources-config/demo.json`; the binary as built (`{GIVEN.get('bin', BIN)}`)"])
    samples = {t: [] for t in tools}
    round_medians = {t: [] for t in tools}
    for w in range(WARMUP):
        for t in round_order(tools, w):
            subprocess.run(argv[t], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, timeout=RUN_TIMEOUT)
    for r in range(RUNS):
        load1 = loadavg()[0]
        for t in round_order(tools, r):
            this = []
            for _ in range(reps):
                t0 = time.perf_counter()
                p = subprocess.Popen(argv[t], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
                _, status, ru = os.wait4(p.pid, 0)
                wall = time.perf_counter() - t0
                p.returncode = os.waitstatus_to_exitcode(status)
                if p.returncode != 0:
                    die(f"startup: {t} exited {p.returncode}")
                this.append({"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "load": load1})
            # Peak RSS from one more run under GNU time (ru_maxrss of a process started from
            # here would count the harness's pages; see run_measured).
            rss_file = os.path.join(scratch, "startup.rss")
            subprocess.run([GNU_TIME, "-f", "%M", "-o", rss_file] + argv[t], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, cwd=ROOT, check=True)
            with open(rss_file) as f:
                rss = int(f.read().split()[-1])
            for x in this:
                x["rss_kib"] = rss
            samples[t] += this
            round_medians[t].append(statistics.median(s["wall"] for s in this))
            log(f"startup round {r + 1}/{RUNS} {t:<22} median {round_medians[t][-1] * 1000:.2f} ms (load {load1})")
    ref = med(samples["jq -n 1"], "wall")
    rows = []
    for t in tools:
        wl = med(samples[t], "wall")
        rows.append([t, f"{wl * 1000:.2f}", f"{min(round_medians[t]) * 1000:.2f}–{max(round_medians[t]) * 1000:.2f}",
                     f"{med(samples[t], 'cpu') * 1000:.2f}", f"{med(samples[t], 'rss_kib') / 1024:.1f}", f"{wl / ref:.2f}x"])
    rep.add(*table(["command", "wall ms", "per-round medians ms", "CPU ms", "peak RSS MiB", "wall / jq's"], rows))
    rep.add("", "wall / jq's = the command's median wall / `jq -n 1`'s (lower is better; 1.00x = as fast as jq).", "")
    return rep.finish()


# ---- mode: serve ---------------------------------------------------------------------------

def mode_serve(scratch):
    seconds = env_int("SERVE_SECONDS", 3600, 1, 86400)
    nginx = Nginx(scratch)
    print(f"{nginx.base}/page-0001.json ... (decode corpus), {nginx.base}/many/page-00001.json ... (many); "
          f"pid {nginx.proc.pid}; Ctrl-C stops it (or after {seconds} s)", flush=True)
    try:
        nginx.proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        pass
    finally:
        nginx.stop()


# ---- mode: jq ------------------------------------------------------------------------------

# The programs of the jq mode: a one-field rename, and a select plus an object construction
# (the same as tributary-jq-bench's).
JQ_PROGRAMS = [
    ("rename", ".data.channel = .data.channel_id | del(.data.channel_id)"),
    ("select+object", 'select(.data.live_broadcast_content == "none") | '
                      '{id, source, type, kind, title, url: .image, author, published, tags: [.kind, .source]}'),
    # A builtin the plain-program evaluator does not take: this one runs in libjq.
    ("libjq: ascii_downcase", ".title |= ascii_downcase"),
]


def write_jq_config(path, base_cfg, program):
    """The decode config with `program` as every source's jq processor (defaults.process)."""
    with open(base_cfg) as f:
        cfg = json.load(f)
    cfg["defaults"] = {"process": [{"type": "jq", "expr": program}]}
    save_config(path, cfg)


def jq_item_keys(path):
    """The ids and titles of a JSON Lines output, sorted (the two tools write keys in different
    orders: the item line's order, and jq's)."""
    out = []
    with open(path, "rb") as f:
        for ln in f:
            v = json.loads(ln)
            out.append((v.get("id"), v.get("title"), v.get("url"), json.dumps(v.get("data"), sort_keys=True)))
    out.sort()
    return out


def mode_jq(scratch):
    """A jq program in process (the jq processor) beside `tributary run --jsonl | jq -c` with the
    same program, on the decode corpus, and the same run without a program (the floor)."""
    pages = env_int("PAGES", 2000, 1, 9999)
    n = env_int("CONCURRENCY", 32, 1, 4096)
    one_source = os.environ.get("JQ_SOURCES", "many") == "1"
    nginx = Nginx(scratch)
    reports = []
    try:
        urls = [f"{nginx.base}/page-{i:04d}.json" for i in range(1, pages + 1)]
        base_cfg = os.path.join(RESULTS, "jq-base.json")
        write_config(base_cfg, urls, n, n, one_source=one_source)
        for name, program in JQ_PROGRAMS:
            slug = re.sub(r"[^a-z0-9+]+", "-", name)
            cfg = os.path.join(RESULTS, f"jq-{slug}.json")
            write_jq_config(cfg, base_cfg, program)
            tools = ["tributary, no program", "tributary + jq processor", "tributary | jq -c"]
            commands = {
                tools[0]: tributary_cmd(base_cfg),
                tools[1]: tributary_cmd(cfg),
                tools[2]: tributary_cmd(base_cfg) + [["jq", "-c", program]],
            }
            outputs = {t: os.path.join(scratch, f"out-jq-{slug}-{i}.jsonl") for i, t in enumerate(tools)}
            expected = {}

            def check(tool, path):
                lines = count_lines(path)
                if tool == tools[0]:
                    return None if lines == pages * 50 else f"wrote {lines} items, expected {pages * 50}"
                want = expected.setdefault(tool, lines)
                return None if lines == want else f"wrote {lines} items, {want} in an earlier round"

            same = "not checked"
            for phase, samples in run_rounds(tools, commands, outputs, nginx.pids, check, f"jq {name}"):
                if phase == "round1":
                    a, b = jq_item_keys(outputs[tools[1]]), jq_item_keys(outputs[tools[2]])
                    same = "yes" if a == b else f"no ({len(a)} items in process, {len(b)} from jq)"
                    if a != b:
                        die(f"jq {name}: the jq processor and the jq command gave different items: {same}")
            reports.append((name, program, tools, samples, same))
    finally:
        nginx.stop()
    rep = Report("jq", f"jq: a program in process beside `tributary run --jsonl | jq -c`, decode corpus ({pages} pages x 50 items) from nginx")
    items = pages * 50
    rep.header([f"{items} items; {'one json source with ' + str(pages) + ' urls' if one_source else str(pages) + ' json sources'}; "
                f"{n} requests in flight; the transform's cost = the tool's wall (or CPU) minus the run without a program"])
    for name, program, tools, samples, same in reports:
        floor_w, floor_c = med(samples[tools[0]], "wall"), med(samples[tools[0]], "cpu")
        rows = []
        for t in tools:
            w, c = med(samples[t], "wall"), med(samples[t], "cpu")
            extra_w = "—" if t == tools[0] else f"{(w - floor_w) / items * 1e6:.1f}"
            extra_c = "—" if t == tools[0] else f"{(c - floor_c) / items * 1e6:.1f}"
            ws = [s["wall"] for s in samples[t]]
            rows.append([t, f"{w:.3f}", f"{min(ws):.3f}..{max(ws):.3f}", f"{c:.2f}", f"{med(samples[t], 'rss_kib') / 1024:.1f}", extra_w, extra_c])
        pw = [s["wall"] for s in samples[tools[2]]]
        iw = [s["wall"] for s in samples[tools[1]]]
        ratios = [p / i for p, i in zip(pw, iw)]
        rep.add(f"### {name}: `{program}`", "")
        rep.add(*table(["tool", "wall s (median)", "wall s min..max", "CPU s", "peak RSS MiB", "transform µs wall/item", "transform µs CPU/item"], rows))
        rep.add("", f"`tributary | jq -c` wall / `tributary + jq processor` wall: {med(samples[tools[2]], 'wall') / med(samples[tools[1]], 'wall'):.2f}x "
                    f"(per round {min(ratios):.2f}x..{max(ratios):.2f}x); transform alone (wall minus the floor): "
                    f"{(med(samples[tools[2]], 'wall') - floor_w) / max(1e-9, med(samples[tools[1]], 'wall') - floor_w):.2f}x. "
                    f"Same ids, titles, urls and data from both: {same}. nginx share of a core: "
                    f"{', '.join(f'{t} {server_share(samples[t]):.0%}' for t in tools)}.", "")
        rep.add(*every_run(samples, tools, lambda s: f"{s['wall']:.3f} s / {s['cpu']:.2f} s CPU (load {s['load']})"), "")
    return rep.finish()


# ---- mode: stories -------------------------------------------------------------------------

STORY_CORPUS = os.path.join(CORPUS, "stories")
STORY_FIELDS = {"id": "id", "title": "title", "url": "url", "published": "published"}


def gen_story_corpus(pages, per_page=50, seed=25):
    """News-like items for the stories stage, written once to bench/corpus/stories (git-ignored):
    the recipe of `tributary-stories-bench bench` (bench/StoriesBench/Bench.swift). Headlines of
    6 to 14 words from a 50,000-word vocabulary drawn Zipf-Mandelbrot (1 / (k + 50): the most
    common word in about 2% of titles), a fifth of them capitalized names, a tenth numbers after
    the third word. 60% of the items are new stories; 20% copy an earlier item under a
    decorated link (`m.` or no `www.`, `/amp?utm_...`, `?fbclid=...#comments`), its title as is;
    20% copy an earlier item's title, decorated as outlets do (`BREAKING: `, ` - Example News`,
    title case, ` | The Daily Example`), under another outlet's link. Each page is one outlet's
    feed. Returns {copy id: original id}, also written to copies.json."""
    import bisect
    rng = random.Random(seed)
    consonants, vowels = "bcdfghjklmnprstvwz", "aeiou"
    vocabulary, seen = [], set()
    while len(vocabulary) < 50000:
        w = "".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(2 + rng.randrange(3)))
        if rng.randrange(3) == 0:
            w += rng.choice(consonants)
        if w not in seen:
            seen.add(w)
            vocabulary.append(w)
    names = [w.capitalize() for w in vocabulary[:8000]]
    cumulative, total = [], 0.0
    for k in range(1, len(vocabulary) + 1):
        total += 1 / (k + 50)
        cumulative.append(total)

    def title():
        words = []
        for i in range(6 + rng.randrange(9)):
            r = rng.randrange(10)
            if r < 2:
                words.append(rng.choice(names))
            elif r == 2 and i > 2:
                words.append(str(1 + rng.randrange(2000)))
            else:
                words.append(vocabulary[min(len(vocabulary) - 1, bisect.bisect_left(cumulative, rng.random() * total))])
        words[0] = words[0][:1].upper() + words[0][1:]
        return " ".join(words)

    items, copies = [], {}
    start = 1_780_000_000
    for k in range(pages * per_page):
        published = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + k * 3))
        r = rng.randrange(10)
        if r < 6 or len(items) < 100:
            items.append({"id": f"n{k}", "title": title(),
                          "url": f"https://www.site{rng.randrange(500)}.example/news/{k}-{rng.choice(vocabulary)}-{rng.choice(vocabulary)}",
                          "published": published})
            continue
        orig = items[rng.randrange(max(0, len(items) - 20000), len(items))]
        while orig["id"] in copies:
            orig = items[rng.randrange(max(0, len(items) - 20000), len(items))]
        if r < 8:
            url = orig["url"].replace("https://www.", "http://m." if rng.randrange(2) == 0 else "https://", 1)
            url += "/amp?utm_source=rss&utm_medium=feed" if rng.randrange(2) == 0 else f"?fbclid=IwAR{k}#comments"
            item = {"id": f"u{k}", "title": orig["title"], "url": url, "published": published}
        else:
            t = orig["title"]
            d = rng.randrange(4)
            t = ("BREAKING: " + t if d == 0 else t + " - Example News" if d == 1 else
                 " ".join(w[:1].upper() + w[1:] for w in t.split(" ")) if d == 2 else t + " | The Daily Example")
            item = {"id": f"t{k}", "title": t, "url": f"https://copy{rng.randrange(50)}.example/{k}", "published": published}
        copies[item["id"]] = orig["id"]
        items.append(item)
    os.makedirs(STORY_CORPUS, exist_ok=True)
    for page in range(pages):
        with open(os.path.join(STORY_CORPUS, f"page-{page + 1:04d}.json"), "w") as f:
            json.dump({"items": items[page * per_page:(page + 1) * per_page]}, f)
    with open(os.path.join(STORY_CORPUS, "copies.json"), "w") as f:
        json.dump(copies, f)
    return copies


def story_corpus(pages):
    """The corpus's copies ({copy id: original id}), generated first when missing or short."""
    marker = os.path.join(STORY_CORPUS, "copies.json")
    if not os.path.exists(marker) or not os.path.exists(os.path.join(STORY_CORPUS, f"page-{pages:04d}.json")):
        log(f"generating the stories corpus ({pages} pages x 50 items) in {STORY_CORPUS}")
        shutil.rmtree(STORY_CORPUS, ignore_errors=True)
        return gen_story_corpus(pages)
    with open(marker) as f:
        return json.load(f)


def stories_found(path, copies):
    """(items, stories told, copies whose story is their original's) of a JSON Lines output."""
    story = {}
    with open(path, "rb") as f:
        for ln in f:
            v = json.loads(ln)
            story[v["id"].split(":", 1)[1]] = v.get("story")
    found = sum(1 for c, o in copies.items() if story.get(c) and story.get(c) == story.get(o))
    return len(story), len({s for s in story.values() if s}), found


def mode_stories(scratch):
    """The stories stage (Docs/stories.md) in a run: news-like items (`gen_story_corpus`) as
    2,000 `json` sources (one outlet's page each) through `stories` with `action: tag` (every
    item emitted with its story; no state: the in-memory matcher) beside the same run without
    it (the floor), each copy checked to share its original's story; then the matcher alone with
    a million stories remembered (`tributary-stories-bench bench`) when STORIES_BENCH_BIN names
    it."""
    pages = env_int("PAGES", 2000, 1, 9999)
    n = env_int("CONCURRENCY", 32, 1, 4096)
    copies = story_corpus(pages)
    copies = {c: o for c, o in copies.items() if int(c[1:]) < pages * 50}
    expected = pages * 50
    nginx = Nginx(scratch)
    try:
        urls = [f"{nginx.base}/stories/page-{i:04d}.json" for i in range(1, pages + 1)]
        sources = [{"name": f"s{i:05d}", "type": "json", "url": u, "id_prefix": "news", "items": "items",
                    "fields": STORY_FIELDS} for i, u in enumerate(urls, 1)]
        base = {"$comment": "generated by bench/harness.py; the URLs point at a loopback server that is gone after the run",
                "http": {"concurrency": n, "per_host": n}, "sources": sources}
        base_cfg = os.path.join(RESULTS, "stories-base.json")
        save_config(base_cfg, base)
        stories_cfg = os.path.join(RESULTS, "stories-tag.json")
        save_config(stories_cfg, dict(base, stories={"match": ["url", "title"], "within": "72h", "action": "tag"}))
        tools = ["tributary, no stories", "tributary + stories"]
        commands = {tools[0]: tributary_cmd(base_cfg), tools[1]: tributary_cmd(stories_cfg)}
        tools, commands = with_baseline(tools, commands)
        outputs = {t: os.path.join(scratch, f"out-stories-{i}.jsonl") for i, t in enumerate(tools)}
        told = {}

        def check(tool, path):
            lines = count_lines(path)
            if lines != expected:
                return f"wrote {lines} items, expected {expected}"
            if unbased(tool) == "tributary + stories":
                got = stories_found(path, copies)
                told.setdefault(tool, []).append(got)
            return None

        samples = {}
        for phase, samples in run_rounds(tools, commands, outputs, nginx.pids, check, "stories"):
            pass
    finally:
        nginx.stop()
    rep = Report("stories", f"stories: the stage in a run, {expected} news-like items ({pages} json sources of 50) from nginx")
    rep.header([f"{n} requests in flight; items of bench/corpus/stories (harness.py `gen_story_corpus`: 60% new stories, "
                f"20% copies under a decorated link, 20% under a decorated title; {len(copies)} copies); `stories`: match url "
                "and title, within 72h, action tag (every item written with its story), no state (the in-memory matcher, "
                "empty at the start of each run); the stage's cost = the run's wall (or CPU) minus the run without stories"])
    floor = tools[0]
    rows = []
    for t in tools:
        ref = floor + BASE_SUFFIX if t.endswith(BASE_SUFFIX) else floor
        w, c = med(samples[t], "wall"), med(samples[t], "cpu")
        fw, fc = med(samples[ref], "wall"), med(samples[ref], "cpu")
        ws = [s["wall"] for s in samples[t]]
        stage = unbased(t) != floor
        rows.append([t, f"{w:.3f}", f"{min(ws):.3f}..{max(ws):.3f}", f"{c:.2f}", f"{med(samples[t], 'rss_kib') / 1024:.1f}",
                     f"{(w - fw) / expected * 1e6:.2f}" if stage else "—", f"{(c - fc) / expected * 1e6:.2f}" if stage else "—",
                     f"{server_share(samples[t]):.0%}"])
    rep.add(*table(["tool", "wall s", "wall s min..max", "CPU s", "peak RSS MiB", "stage µs wall/item", "stage µs CPU/item",
                    "nginx share of a core"], rows))
    for t, runs in told.items():
        found = [r[2] for r in runs]
        rep.add("", f"{t}: copies that share their original's story {min(found)}..{max(found)} of {len(copies)} "
                    f"({min(found) / max(1, len(copies)):.4f}..{max(found) / max(1, len(copies)):.4f}); stories told "
                    f"{min(r[1] for r in runs)}..{max(r[1] for r in runs)} for {expected} items (sources deliver in a different "
                    "order each run, and an item joins the earliest matching story it is given).")
    rep.add("", *every_run(samples, tools, lambda s: f"{s['wall']:.3f} s / {s['cpu']:.2f} s CPU / {s['rss_kib'] / 1024:.0f} MiB (load {s['load']})"))
    matcher = os.environ.get("STORIES_BENCH_BIN", "")
    if matcher:
        args = [matcher, "bench"] + os.environ.get("STORIES_BENCH_ARGS", "").split()
        log(f"stories: the matcher alone: {' '.join(args)}")
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            die(f"{' '.join(args)} failed (exit {r.returncode}):\n{r.stderr[-3000:]}")
        rep.add("", f"The matcher alone, `{' '.join(['tributary-stories-bench'] + args[1:])}` (Docs/stories.md#the-matcher-alone):", "",
                "```", *r.stdout.strip().splitlines(), "```")
    return rep.finish()


# ---- mode: instructions ----------------------------------------------------------------------

def mode_instructions(scratch):
    """The decode's first pages (one source of INSTR_PAGES urls, 50 items each) under callgrind:
    the instructions each binary executes, without a state and with a fresh SQLite state. A
    change's cost per item, counted: on a shared VM one binary's timed rounds spread by 15-25%,
    more than most changes to the cost of an item move. Not a peer comparison (a Python peer under
    callgrind runs 100x slower): it compares TRIBUTARY_BIN with TRIBUTARY_BASELINE_BIN."""
    pages = env_int("INSTR_PAGES", 300, 1, 9999)
    per_item = 50
    expected = pages * per_item
    if not shutil.which("valgrind"):
        die("valgrind is missing (bench/run.sh installs it)")
    nginx = Nginx(scratch)
    rows = []
    outputs = {}
    try:
        urls = [f"{nginx.base}/page-{i:04d}.json" for i in range(1, pages + 1)]
        cfg = os.path.join(RESULTS, "instructions-urls.json")
        write_config(cfg, urls, 32, 32, one_source=True)
        binaries = [("tributary", BIN)] + ([("tributary @base", BASE_BIN)] if BASE_BIN else [])
        counts = {}
        for name, binary in binaries:
            for state in ("no state", "fresh SQLite state"):
                tag = f"{len(outputs)}"
                out = os.path.join(scratch, f"out-instr-{tag}.jsonl")
                args = ["--no-state"] if state == "no state" else ["--state", os.path.join(scratch, f"state-{tag}.sqlite")]
                cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={os.path.join(scratch, 'cg-' + tag + '.out')}",
                       binary, "run", "-c", cfg, "--jsonl", "--quiet"] + args
                log(f"instructions: {name}, {state} (callgrind, {pages} pages)")
                with open(out, "wb") as f:
                    r = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, text=True)
                m = re.search(r"Collected : (\d+)", r.stderr)
                if r.returncode != 0 or not m:
                    die(f"{' '.join(cmd)} failed (exit {r.returncode}):\n{r.stderr[-3000:]}")
                lines = count_lines(out)
                if lines != expected:
                    die(f"{name} ({state}) wrote {lines} items, expected {expected}")
                counts[(name, state)] = int(m.group(1))
                outputs[f"{name}, {state}"] = (out, False)
    finally:
        nginx.stop()
    _, same = compare_outputs(outputs, f"tributary, no state")
    for (name, state), n in counts.items():
        base = counts.get(("tributary @base", state))
        rows.append([name, state, f"{n / 1e6:,.1f}M", f"{n / expected:,.0f}",
                     "—" if base is None or name != "tributary" else f"{(n - base) / base:+.1%}"])
    rep = Report("instructions", f"instructions: {pages} pages x {per_item} items (one json source) under callgrind")
    rep.header([f"{expected} items; each binary run once per state (callgrind's counts repeat within a few thousandths)",
                "the counts are the process's own instructions (start-up, the config and libcurl included, the kernel's "
                "work not); callgrind runs the threads one at a time, so waiting costs nothing here"], rounds=False, timed=False)
    rep.add(*table(["binary", "state", "instructions", "per item", "against @base"], rows))
    rep.add("", f"Same items from every run (sorted, `fetched` removed): {same}.", "")
    return rep.finish()


MODES = {"decode": mode_decode, "fetch": mode_fetch, "many": mode_many, "startup": mode_startup, "jq": mode_jq, "stories": mode_stories}
# Not part of `all`: watch takes WATCH_CYCLES x WATCH_INTERVAL (10 minutes by default).
SLOW_MODES = {"watch": mode_watch, "instructions": mode_instructions}


# The binaries as given, before `same_place` copied them (for the reports).
GIVEN = {}


def same_place(scratch):
    """Copies the binary (and the baseline, if any) into the scratch folder, each as
    `tributary`, and measures those: the same binary started 0.1-0.3 ms slower from .build/
    than from /tmp every time, more than the changes a start-up comparison looks for."""
    global BIN, BASE_BIN
    if BASE_BIN and not os.access(BASE_BIN, os.X_OK):
        die(f"TRIBUTARY_BASELINE_BIN={BASE_BIN} is not an executable file")
    GIVEN["bin"], GIVEN["base"] = BIN, BASE_BIN
    for name, path in (("bin", BIN), ("base", BASE_BIN)):
        if not path:
            continue
        folder = os.path.join(scratch, name)
        os.makedirs(folder)
        copy = os.path.join(folder, "tributary")
        shutil.copy2(path, copy)
        if name == "bin":
            BIN = copy
        else:
            BASE_BIN = copy


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in list(MODES) + list(SLOW_MODES) + ["all", "serve"]:
        die("usage: harness.py decode|fetch|many|startup|jq|stories|all|serve|watch|instructions (use bench/run.sh)")
    if not BIN or not os.access(BIN, os.X_OK):
        die("TRIBUTARY_BIN must name the tributary binary (bench/run.sh sets it)")
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)
    os.makedirs(RESULTS, exist_ok=True)
    scratch = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"tributary-bench.{os.getpid()}")
    os.makedirs(scratch)
    _scratch.append(scratch)
    if RUNS < 5 and sys.argv[1] not in ("serve", "watch", "instructions"):
        log(f"note: RUNS={RUNS}; at least 5 rounds are needed for numbers worth comparing")
    try:
        if sys.argv[1] != "serve":
            same_place(scratch)
        mode = sys.argv[1]
        if mode == "serve":
            mode_serve(scratch)
        else:
            for m in (MODES if mode == "all" else [mode]):
                {**MODES, **SLOW_MODES}[m](scratch)
    finally:
        cleanup()


if __name__ == "__main__":
    main()
