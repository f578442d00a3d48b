#!/usr/bin/env python3
"""HTTP/1.1 at per_host 6 against HTTP/2 on one host, in one run.

    python3 bench/http2/run.py           (after `swift build -c release --product tributary`)

FEEDS (default 1,000) RSS feeds of realistic size (20 items each, 20-40 KB: titles, links,
dates, authors, categories and HTML descriptions of varying length; seeded, so every run has
the same bytes) are served by Debian's nginx on 127.0.0.1 over TLS with HTTP/2 offered by
ALPN (`listen PORT ssl http2;`, a CA and server certificate made here with openssl), one
process (`master_process off`). Each round runs, in alternating order:

- `tributary h1`: `tributary run --no-state` of FEEDS `feed` sources on that host, items to a
  JSON Lines file, `http: {"http2": false, "per_host": 6, "ca_file": ...}`: HTTP/1.1, at most
  6 connections to the host (the default `per_host`).
- `tributary h2`: the same sources with the default `http` settings (`http2: true`, `per_host`
  not written): one multiplexed connection, and up to min(concurrency, 100) = 32 streams once
  the host answered over HTTP/2.
- `curl h2 x6`: `curl --parallel --parallel-max 6 --http2` fetching the same FEEDS URLs,
  bodies to /dev/null: the ordinary tool at the same 6 in flight.
- `curl h2 x32`: the same with `--parallel-max 32`, Tributary's concurrency.
- `curl h1 x6`: `curl --parallel --parallel-max 6 --http1.1`.

Two scenarios, each its own table: `static files` (nginx answers at once: on loopback the
transport's cost is small beside parsing 20,000 items, so this shows what HTTP/2 costs or saves
in CPU), and `server time` (`/slow/`: nginx proxies each request to delay_upstream.py, which
answers after DELAY seconds, default 0.05, like a feed a CMS renders per request: the number
of requests in flight then decides the wall time).

The curl runs only download; Tributary also parses 20,000 items and writes them. Wall time,
CPU and peak RSS per run (bench/harness.run_measured); nginx's CPU over the run's wall time is
its share of one core. Connections and protocols are counted from nginx's access log
(`$connection $connection_requests $server_protocol`), per run. Medians over RUNS rounds
(default 5); ratios per round, reported as median (min..max). Written to
bench/results/http2-latest.md.
"""
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import harness  # noqa: E402  (run_measured, the alternating order, servers that die with us)

FEEDS = harness.env_int("FEEDS", 1000)
RUNS = harness.env_int("RUNS", 5)
DELAY = float(os.environ.get("DELAY", "0.05"))  # the second scenario's server time per feed, seconds
BIN = os.environ.get("TRIBUTARY_BIN", os.path.join(ROOT, ".build", "release", "tributary"))
SCRATCH = os.path.join(ROOT, ".build", "http2-bench")

WORDS = ("council budget library harbour festival railway school election museum weather river bridge market "
         "hospital stadium theatre garden planning housing transport energy water police museum park").split()


def feed(f, rng):
    """One RSS 2.0 feed of 20 items, 20-40 KB."""
    target = rng.randint(20_000, 40_000)
    head = (f'<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" '
            f'xmlns:content="http://purl.org/rss/1.0/modules/content/">\n<channel>\n<title>News {f}</title>\n'
            f'<link>https://news{f}.example.org/</link>\n<description>Local news, site {f}</description>\n<language>en</language>\n')
    per_item = (target - len(head)) // 20
    items = []
    for i in range(20):
        day = 1 + (f + i) % 28
        text = []
        size = 0
        while size < per_item - 600:
            sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 18))).capitalize() + ". "
            text.append(sentence)
            size += len(sentence) + (12 if len(text) % 4 == 0 else 0)
        paras = "".join(("&lt;/p&gt;&lt;p&gt;" if k % 4 == 0 else "") + s for k, s in enumerate(text))
        items.append(f"""<item>
<title>{' '.join(rng.choice(WORDS) for _ in range(6)).title()} ({f}-{i})</title>
<link>https://news{f}.example.org/2026/11/{day:02d}/story-{i}</link>
<guid isPermaLink="false">news-{f}-story-{i}</guid>
<pubDate>{day:02d} Nov 2026 {i % 24:02d}:15:00 +0000</pubDate>
<dc:creator>Reporter {i % 7}</dc:creator>
<category>{rng.choice(WORDS)}</category><category>{rng.choice(WORDS)}</category>
<description>&lt;p&gt;{paras}&lt;/p&gt;</description>
</item>
""")
    return head + "".join(items) + "</channel>\n</rss>\n"


def certificates(d):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "server.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=critical,CA:FALSE\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for argv in (["req", "-x509"] + ec + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Bench CA",
                                          "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
                 ["req"] + ec + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"],
                 ["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
                  "-days", "2", "-extfile", "server.ext"]):
        r = subprocess.run(["openssl"] + argv, cwd=d, capture_output=True, text=True)
        if r.returncode != 0:
            harness.die(f"openssl {argv[0]} failed: {r.stderr}")
    return os.path.join(d, "ca.pem"), os.path.join(d, "server.pem"), os.path.join(d, "server.key")


def nginx(root, cert, key, upstream_port):
    d = os.path.join(SCRATCH, "nginx")
    os.makedirs(d, exist_ok=True)
    port = harness.free_port()
    conf = os.path.join(d, "nginx.conf")
    temps = "\n".join(f"    {k}_temp_path {d}/{k};" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    with open(conf, "w") as f:
        f.write(f"""daemon off;
master_process off;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log;
events {{ worker_connections 4096; }}
http {{
    log_format conns '$connection $connection_requests $server_protocol $status $request_uri';
    access_log {d}/access.log conns;
{temps}
    sendfile on;
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    open_file_cache max=5000 inactive=300s;
    types {{ application/rss+xml xml; }}
    upstream slow {{ server 127.0.0.1:{upstream_port}; keepalive 256; }}
    server {{
        listen 127.0.0.1:{port} ssl http2 backlog=4096;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        root {root};
        location /slow/ {{
            proxy_pass http://slow/;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffer_size 16k;
            proxy_buffers 8 32k;
        }}
    }}
}}
""")
    exe = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.path.exists(exe):
        harness.die("nginx is not installed: apt-get install nginx (or `make test-tools`)")
    p = harness.start_server([exe, "-c", conf, "-p", d + "/", "-e", d + "/error.log"], stderr=subprocess.DEVNULL)
    return p, f"https://127.0.0.1:{port}", os.path.join(d, "access.log")


def log_lines(path):
    with open(path) as f:
        return f.read().splitlines()


def scenario(label, prefix, base, ca, access, server_pids, sizes):
    """One table: the five tools fetching FEEDS URLs under `prefix` (static files, or through
    the delaying upstream), RUNS alternating rounds after one untimed run of each."""
    urls = [f"{base}{prefix}/f{f:04d}.xml" for f in range(FEEDS)]
    sources = [{"name": f"f{f}", "type": "feed", "url": u} for f, u in enumerate(urls)]
    out_jsonl = os.path.join(SCRATCH, "items.jsonl")
    cfgs = {}
    # h1: HTTP/1.1 at per_host 6 (the default, written out); h2: the defaults (a per_host
    # written in the config would bound the HTTP/2 streams too).
    for name, http in (("h1", {"http2": False, "per_host": 6, "ca_file": ca}), ("h2", {"ca_file": ca})):
        cfgs[name] = os.path.join(SCRATCH, f"{name}{prefix.replace('/', '-')}.json")
        with open(cfgs[name], "w") as f:
            json.dump({"http": http, "sources": sources, "sinks": [{"type": "jsonl", "path": out_jsonl}]}, f)
    curl_cfg = os.path.join(SCRATCH, f"curl{prefix.replace('/', '-')}.cfg")
    with open(curl_cfg, "w") as f:
        for u in urls:
            f.write(f'url = "{u}"\noutput = "/dev/null"\n')
    curl = ["curl", "-sS", "--fail", "--cacert", ca, "--parallel", "-K", curl_cfg]
    commands = {
        "tributary h1": [BIN, "run", "-c", cfgs["h1"], "--no-state", "--log-level", "error"],
        "tributary h2": [BIN, "run", "-c", cfgs["h2"], "--no-state", "--log-level", "error"],
        "curl h2 x6": curl + ["--parallel-max", "6", "--http2"],
        "curl h2 x32": curl + ["--parallel-max", "32", "--http2"],
        "curl h1 x6": curl + ["--parallel-max", "6", "--http1.1"],
    }
    tools = list(commands)
    samples = {t: [] for t in tools}
    # One untimed run of each: nginx's open-file cache and the page cache warm for all alike.
    for t in tools:
        res = harness.run_measured([commands[t]], os.path.join(SCRATCH, "warmup.out"), server_pids=server_pids[:1])
        if res["rc"] != 0:
            harness.die(f"{t} failed ({res['rc']}): {res['stderr'][-2000:]}")
    for r in range(RUNS):
        for t in harness.round_order(tools, r):
            if os.path.exists(out_jsonl):
                os.remove(out_jsonl)
            before = len(log_lines(access))
            res = harness.run_measured([commands[t]], os.path.join(SCRATCH, "run.out"), server_pids=server_pids[:1])
            if res["rc"] != 0:
                harness.die(f"{t} failed ({res['rc']}): {res['stderr'][-2000:]}")
            lines = [ln.split(" ", 4) for ln in log_lines(access)[before:]]
            res["requests"] = len(lines)
            res["connections"] = len({ln[0] for ln in lines})
            res["protocols"] = sorted({ln[2] for ln in lines})
            res["bad"] = sum(1 for ln in lines if ln[3] != "200")
            if res["requests"] != FEEDS or res["bad"]:
                harness.die(f"{t}: {res['requests']} requests, {res['bad']} not 200, expected {FEEDS} of 200")
            if t.startswith("tributary"):
                with open(out_jsonl) as f:
                    res["items"] = sum(1 for _ in f)
                if res["items"] != FEEDS * 20:
                    harness.die(f"{t}: {res['items']} items, expected {FEEDS * 20}")
            samples[t].append(res)
            harness.log(f"{label}, round {r + 1} {t}: wall {res['wall']:.3f} s, {res['connections']} connections, {'/'.join(res['protocols'])}")

    def med(t, k):
        return statistics.median(s[k] for s in samples[t])

    def ratio(a, b):
        rs = [x["wall"] / y["wall"] for x, y in zip(samples[a], samples[b])]
        return f"{statistics.median(rs):.2f}x ({min(rs):.2f}..{max(rs):.2f})"

    lines = [f"### {label}", "", "| tool | wall s (min..max) | CPU s | peak RSS MiB | connections | protocol | nginx, share of a core |", "|---|---|---|---|---|---|---|"]
    for t in tools:
        walls = [s["wall"] for s in samples[t]]
        conns = sorted({s["connections"] for s in samples[t]})
        protos = sorted({p for s in samples[t] for p in s["protocols"]})
        lines.append(f"| {t} | {med(t, 'wall'):.3f} ({min(walls):.3f}..{max(walls):.3f}) | {med(t, 'cpu'):.3f} | {med(t, 'rss_kib') / 1024:.0f} | "
                     f"{'-'.join(str(c) for c in (conns[0], conns[-1])) if len(conns) > 1 else conns[0]} | {'/'.join(protos)} | "
                     f"{statistics.median(s['server_cpu'] / s['wall'] for s in samples[t]) * 100:.0f}% |")
    lines += ["", "Wall-time ratios per round, median (min..max):", "",
              f"- tributary h1 / tributary h2: {ratio('tributary h1', 'tributary h2')}",
              f"- curl h2 x6 / tributary h2: {ratio('curl h2 x6', 'tributary h2')}",
              f"- curl h2 x32 / tributary h2: {ratio('curl h2 x32', 'tributary h2')}",
              f"- curl h1 x6 / tributary h1: {ratio('curl h1 x6', 'tributary h1')}",
              f"- nginx CPU per run, median: tributary h1 {med('tributary h1', 'server_cpu'):.3f} s, tributary h2 {med('tributary h2', 'server_cpu'):.3f} s",
              ""]
    return lines


def main():
    if not os.path.exists(BIN):
        harness.die(f"no release binary at {BIN}: swift build -c release --product tributary")
    shutil.rmtree(SCRATCH, ignore_errors=True)
    site = os.path.join(SCRATCH, "site")
    os.makedirs(os.path.join(site, "feeds"))
    rng = random.Random(24)
    sizes = []
    for f in range(FEEDS):
        text = feed(f, rng)
        sizes.append(len(text.encode()))
        with open(os.path.join(site, "feeds", f"f{f:04d}.xml"), "w") as out:
            out.write(text)
    ca, cert, key = certificates(os.path.join(SCRATCH, "tls"))
    upstream = harness.start_server([sys.executable, os.path.join(HERE, "delay_upstream.py"), os.path.join(site, "feeds"), str(DELAY)],
                                    stdout=subprocess.PIPE, text=True)
    upstream_port = int(upstream.stdout.readline())
    server, base, access = nginx(site, cert, key, upstream_port)
    deadline = time.monotonic() + 10
    while subprocess.run(["curl", "-sf", "--cacert", ca, "-o", "/dev/null", f"{base}/slow/f0000.xml"]).returncode != 0:
        if time.monotonic() > deadline or server.poll() is not None:
            harness.die("nginx did not start: " + open(os.path.join(SCRATCH, "nginx", "error.log")).read())
        time.sleep(0.05)
    curl_version = subprocess.run(["curl", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    lines = [f"{FEEDS} RSS feeds (20 items each, {min(sizes) // 1000}-{max(sizes) // 1000} KB, {sum(sizes) / 1e6:.1f} MB in all) on one host: "
             f"{harness.nginx_version()} over TLS on 127.0.0.1, one worker; RUNS={RUNS}, alternating order, medians.",
             f"Machine: {harness.machine()}, load average before: {' '.join(harness.loadavg())}.", f"{curl_version}.",
             f"Tributary: {subprocess.run([BIN, '--version'], capture_output=True, text=True).stdout.splitlines()[0]}.", ""]
    lines += scenario("static files (no server time)", "/feeds", base, ca, access, [server.pid], sizes)
    lines += scenario(f"{DELAY * 1000:.0f} ms of server time per feed (nginx proxying to a delaying upstream)", "/slow", base, ca, access,
                      [server.pid], sizes)
    harness.stop_server(server)
    harness.stop_server(upstream)
    harness.write_results("http2-latest.md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    try:
        main()
    finally:
        harness.cleanup()
