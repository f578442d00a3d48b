#!/usr/bin/env python3
"""The peer: trafilatura's extraction of every corpus page, with its time and memory.

Usage: trafilatura_run.py CORPUS_DIR OUT_DIR [--rounds R] [--variant default|recall|both]

For each page, reads the bytes and hands them over as a careful user would: when the page's
.json says an HTTP header declares the charset ("http_charset"), the bytes are decoded with it
and the text is passed (the header wins over anything in the document, as in a browser);
otherwise the bytes are passed and trafilatura detects the encoding itself. Then
    trafilatura.extract(data, url=<the .json's url>, include_comments=False,
                        include_tables=True, favor_precision=False)
(variant "default", the peer) or the same with favor_recall=True (variant "recall"), and writes
OUT_DIR/<NN>-<slug>.txt (OUT_DIR/recall/ for the second variant when both run).

Timing covers extract() alone (reading files and decoding are outside it): one untimed warm-up
pass over all pages, then R rounds (default 5), each the sum of extract()'s wall time over all
pages; it prints the median round, total MB of HTML, MB/s, ms/page, and the process's peak RSS
(resource.getrusage ru_maxrss), beside the RSS it had before the first extraction (Python,
trafilatura's imports and the corpus in memory).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time


def load(corpus: str) -> list[dict]:
    pages = []
    for f in sorted(os.listdir(corpus)):
        if not f.endswith(".html"):
            continue
        slug = f[:-5]
        meta_path = os.path.join(corpus, slug + ".json")
        try:
            with open(meta_path, encoding="utf-8") as fh:
                meta = json.load(fh)
        except FileNotFoundError:
            raise SystemExit(f"{meta_path}: missing (every page needs its .json: url, kind, http_charset)")
        with open(os.path.join(corpus, f), "rb") as fh:
            raw = fh.read()
        http = meta.get("http_charset")
        data = raw.decode(http) if http else raw
        pages.append({"slug": slug, "url": meta["url"], "kind": meta.get("kind"), "bytes": len(raw), "data": data})
    if not pages:
        raise SystemExit(f"{corpus}: no .html pages")
    return pages


def run_variant(pages: list[dict], out_dir: str, rounds: int, recall: bool) -> dict:
    import trafilatura

    def extract(p):
        return trafilatura.extract(p["data"], url=p["url"], include_comments=False, include_tables=True,
                                   favor_precision=False, favor_recall=recall)

    os.makedirs(out_dir, exist_ok=True)
    empty = 0
    for p in pages:  # warm-up, and the outputs
        text = extract(p) or ""
        empty += not text.strip()
        with open(os.path.join(out_dir, p["slug"] + ".txt"), "w", encoding="utf-8") as fh:
            fh.write(text)
    times = []
    for _ in range(rounds):
        total = 0.0
        for p in pages:
            t0 = time.perf_counter()
            extract(p)
            total += time.perf_counter() - t0
        times.append(total)
    med = statistics.median(times)
    mb = sum(p["bytes"] for p in pages) / 1e6
    return {"variant": "favor_recall" if recall else "default", "pages": len(pages), "empty": empty,
            "rounds_s": times, "median_s": med, "mb": mb, "mb_per_s": mb / med, "ms_per_page": med * 1000 / len(pages)}


def main() -> None:
    ap = argparse.ArgumentParser(description="trafilatura on the article corpus: outputs, time, memory")
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--variant", choices=["default", "recall", "both"], default="both")
    ap.add_argument("--json", help="write the timing summary here")
    args = ap.parse_args()
    try:
        import trafilatura
        from importlib.metadata import version
    except ImportError as e:
        raise SystemExit(f"cannot import trafilatura ({e}): run bench/article/setup.sh and use its venv's python")
    pages = load(args.corpus)
    rss_loaded_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    results = []
    if args.variant in ("default", "both"):
        results.append(run_variant(pages, args.out, args.rounds, recall=False))
    if args.variant in ("recall", "both"):
        results.append(run_variant(pages, os.path.join(args.out, "recall") if args.variant == "both" else args.out,
                                   args.rounds, recall=True))
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"trafilatura {version('trafilatura')}, {len(pages)} pages, {results[0]['mb']:.2f} MB of HTML, "
          f"{args.rounds} rounds after a warm-up, extract() time only")
    print(f"{'variant':<14} {'median s':>9} {'MB/s':>7} {'ms/page':>8} {'empty':>6}")
    for r in results:
        print(f"{r['variant']:<14} {r['median_s']:9.3f} {r['mb_per_s']:7.2f} {r['ms_per_page']:8.2f} {r['empty']:6d}")
    print(f"peak RSS of the process: {rss_mb:.1f} MB ({rss_loaded_mb:.1f} MB after importing trafilatura and reading the corpus)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"trafilatura": version("trafilatura"), "peak_rss_mb": rss_mb, "rss_after_load_mb": rss_loaded_mb, "variants": results}, fh, indent=1)
            fh.write("\n")


if __name__ == "__main__":
    sys.exit(main())
