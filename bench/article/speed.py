#!/usr/bin/env python3
"""Article extraction speed: Tributary's whole process against trafilatura's extraction alone.

    bash bench/run.sh fulltext            (or, after `make release` and bench/article/setup.sh:
    python3 bench/article/speed.py         TRIBUTARY_BIN names another binary)

The pages of bench/article/corpus are served by nginx on 127.0.0.1 under PAGES distinct URLs
(default 1,000: the corpus repeated), listed by a JSON Feed. Each round runs, in alternating
order:

- tributary: `tributary run --no-state` of a config whose feed source lists the pages and whose
  `fulltext` processor fetches every page (no state: nothing is cached), extracts the article
  and writes it to a JSON Lines file. Its wall time, CPU and peak RSS are the whole process:
  start, the feed, PAGES HTTP fetches, parsing, extraction, sanitizing, writing.
- trafilatura: one Python process reads the same PAGES files from disk into memory, then calls
  `trafilatura.extract(bytes, url=...)` on each; the time counted is the extract() calls alone
  (no start-up, no import, no reading, no fetching). Peak RSS is the process's.

Medians over RUNS rounds (default 5); the ratio is trafilatura's extraction time over
Tributary's wall time, per round, reported as median (min..max). nginx's CPU during the
Tributary runs is reported as a share of one core. Outputs are checked: every page gives the
same number of non-empty articles in every round.
"""
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import harness  # noqa: E402  (run_measured, nginx helpers, the alternating order)

CORPUS = os.path.join(HERE, "corpus")
PAGES = harness.env_int("PAGES", 1000)
RUNS = harness.env_int("RUNS", 5)
VENV = os.environ.get("ARTICLE_VENV", os.path.join(ROOT, ".build", "article-venv"))
PYTHON = os.path.join(VENV, "bin", "python3")
BIN = os.environ.get("TRIBUTARY_BIN") or os.path.join(ROOT, ".build", "release", "tributary")
SCRATCH = os.path.join(ROOT, ".build", "article-bench")

PEER = r'''
import json, os, resource, sys, time
import trafilatura
listing = json.load(open(sys.argv[1]))
pages = [(p["url"], open(p["file"], "rb").read()) for p in listing]
out = sys.argv[2]
trafilatura.extract(pages[0][1], url=pages[0][0])  # warm up: the first call loads its models
t0 = time.perf_counter()
texts = [trafilatura.extract(b, url=u, include_comments=False, include_tables=True) for u, b in pages]
seconds = time.perf_counter() - t0
texts_dir = sys.argv[3]
os.makedirs(texts_dir, exist_ok=True)
for p, t in zip(listing, texts):
    if p.get("name"):
        open(os.path.join(texts_dir, p["name"] + ".txt"), "w").write(t or "")
json.dump({"seconds": seconds, "nonempty": sum(1 for t in texts if t), "bytes": sum(len(b) for _, b in pages)}, open(out, "w"))
'''


def nginx(root, port):
    d = os.path.join(SCRATCH, "nginx")
    os.makedirs(d, exist_ok=True)
    conf = os.path.join(d, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""daemon off;
master_process off;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    sendfile on;
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    open_file_cache max=5000 inactive=300s;
    types {{ text/html html; application/feed+json json; }}
    server {{ listen 127.0.0.1:{port}; root {root}; }}
}}
""")
    exe = shutil.which("nginx") or "/usr/sbin/nginx"
    p = harness.start_server([exe, "-c", conf, "-p", d], stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    harness.wait_http(base + "/feed.json", p, "nginx")
    return p, base


def main():
    pages = sorted(glob.glob(os.path.join(CORPUS, "*.html")))
    if not pages:
        harness.die(f"no pages in {CORPUS}")
    if not os.path.exists(BIN):
        harness.die(f"no release binary at {BIN}: make release")
    if not os.path.exists(PYTHON):
        harness.die(f"no venv at {VENV}: bash bench/article/setup.sh")
    shutil.rmtree(SCRATCH, ignore_errors=True)
    site = os.path.join(SCRATCH, "site")
    os.makedirs(os.path.join(site, "p"))
    listing, items, total = [], [], 0
    for i in range(PAGES):
        src = pages[i % len(pages)]
        name = f"p/{i:05d}-{os.path.basename(src)}"
        os.symlink(src, os.path.join(site, name))
        meta = json.load(open(src[:-5] + ".json"))
        listing.append({"file": src, "url": meta.get("url", "https://example.org/"),
                        "name": os.path.basename(src)[:-5] if i < len(pages) else None})
        total += os.path.getsize(src)
        items.append({"id": f"p{i}", "url": f"__BASE__/{name}", "title": f"Page {i}", "content_text": "teaser"})
    # The feed is written before nginx starts: its open-file cache would keep a rewritten file's old size.
    port = harness.free_port()
    base = f"http://127.0.0.1:{port}"
    for it in items:
        it["url"] = it["url"].replace("__BASE__", base)
    with open(os.path.join(site, "feed.json"), "w") as f:
        json.dump({"version": "https://jsonfeed.org/version/1.1", "title": "bench", "items": items}, f)
    server, _ = nginx(site, port)
    cfg = os.path.join(SCRATCH, "tributary.json")
    with open(cfg, "w") as f:
        json.dump({"sources": [{"name": "pages", "type": "feed", "url": base + "/feed.json", "max_items": PAGES + 1,
                                "process": [{"type": "fulltext", "concurrency_per_host": 4}]}],
                   "sinks": [{"type": "jsonl", "path": os.path.join(SCRATCH, "out.jsonl")}]}, f)
    with open(os.path.join(SCRATCH, "listing.json"), "w") as f:
        json.dump(listing, f)
    peer_script = os.path.join(SCRATCH, "peer.py")
    with open(peer_script, "w") as f:
        f.write(PEER)
    tools = ["tributary", "trafilatura"]
    commands = {
        "tributary": [BIN, "run", "-c", cfg, "--no-state", "--log-level", "error"],
        "trafilatura": [PYTHON, peer_script, os.path.join(SCRATCH, "listing.json"), os.path.join(SCRATCH, "peer.json"),
                        os.path.join(SCRATCH, "texts", "trafilatura")],
    }
    samples = {t: [] for t in tools}
    for r in range(RUNS):
        for t in harness.round_order(tools, r):
            res = harness.run_measured([commands[t]], os.path.join(SCRATCH, f"{t}.out"), server_pids=[server.pid] if t == "tributary" else ())
            if res["rc"] != 0:
                harness.die(f"{t} failed ({res['rc']}): {res['stderr'][-2000:]}")
            if t == "trafilatura":
                peer = json.load(open(os.path.join(SCRATCH, "peer.json")))
                res["extract"] = peer["seconds"]
                res["nonempty"] = peer["nonempty"]
            else:
                n = 0
                ours = os.path.join(SCRATCH, "texts", "tributary")
                os.makedirs(ours, exist_ok=True)
                with open(os.path.join(SCRATCH, "out.jsonl")) as f:
                    for line in f:
                        item = json.loads(line)
                        n += 1 if item.get("content") else 0
                        i = int(item["id"].rsplit("p", 1)[1])
                        if i < len(pages):
                            with open(os.path.join(ours, os.path.basename(pages[i])[:-5] + ".txt"), "w") as text_file:
                                text_file.write(item.get("content") or "")
                os.remove(os.path.join(SCRATCH, "out.jsonl"))
                res["nonempty"] = n
            samples[t].append(res)
            harness.log(f"round {r + 1} {t}: wall {res['wall']:.3f} s" + (f", extract {res['extract']:.3f} s" if "extract" in res else "") + f", {res['nonempty']} articles")
    harness.stop_server(server)
    for t in tools:
        counts = {s["nonempty"] for s in samples[t]}
        if len(counts) != 1:
            harness.die(f"{t} gave different numbers of articles across rounds: {sorted(counts)}")
    mb = total / 1e6
    tw = statistics.median(s["wall"] for s in samples["tributary"])
    pe = statistics.median(s["extract"] for s in samples["trafilatura"])
    ratios = [p["extract"] / t["wall"] for t, p in zip(samples["tributary"], samples["trafilatura"])]
    share = statistics.median(s["server_cpu"] / s["wall"] for s in samples["tributary"])
    rows = [
        ("Tributary, whole process (fetch from nginx included)", tw, statistics.median(s["cpu"] for s in samples["tributary"]),
         statistics.median(s["rss_kib"] for s in samples["tributary"]), samples["tributary"][0]["nonempty"]),
        ("trafilatura, extract() alone", pe, statistics.median(s["cpu"] for s in samples["trafilatura"]),
         statistics.median(s["rss_kib"] for s in samples["trafilatura"]), samples["trafilatura"][0]["nonempty"]),
    ]
    lines = [f"{PAGES} pages ({mb:.1f} MB of HTML, the {len(pages)} corpus pages repeated), RUNS={RUNS}, alternating order, medians",
             "", "| tool | wall s | CPU s (whole process) | ms/page | MB/s | peak RSS MiB | articles |", "|---|---|---|---|---|---|---|"]
    for name, wall, cpu, rss, n in rows:
        lines.append(f"| {name} | {wall:.3f} | {cpu:.3f} | {wall * 1000 / PAGES:.2f} | {mb / wall:.1f} | {rss / 1024:.0f} | {n} |")
    lines += ["", f"speed-up (trafilatura's extraction time / Tributary's wall time): {statistics.median(ratios):.1f}x ({min(ratios):.1f}..{max(ratios):.1f})",
              f"nginx: {share * 100:.0f}% of one core during the Tributary runs"]
    # Quality from the same run: the content the binary wrote for each corpus page, and
    # trafilatura's text for it, scored against the gold bodies (score.py).
    score = subprocess.run([sys.executable, os.path.join(HERE, "score.py"), CORPUS, os.path.join(SCRATCH, "texts", "tributary"),
                            os.path.join(SCRATCH, "texts", "trafilatura"), "--name", "tributary", "--name", "trafilatura"],
                           capture_output=True, text=True)
    lines += ["", "Quality (F1 of 4-word shingles against the gold bodies, from the texts of this run):", "", "```", score.stdout.rstrip(), "```"]
    harness.write_results("article-speed-latest.md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    try:
        main()
    finally:
        harness.cleanup()
