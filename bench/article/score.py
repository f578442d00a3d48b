#!/usr/bin/env python3
"""Scores article extractions against the corpus gold: F1 of 4-word shingles.

Usage: score.py CORPUS_DIR OUTPUT_DIR [OUTPUT_DIR ...] [--name NAME ...] [--json FILE] [--quiet]

CORPUS_DIR holds <NN>-<slug>.gold.txt and <NN>-<slug>.json per page; each OUTPUT_DIR holds one
extraction <NN>-<slug>.txt per page (a missing file counts as an empty extraction).

The measure, per page:
  tokens     re.findall(r"\\w+", text.lower()): Unicode-aware lower-casing, words are runs of
             letters and digits (punctuation and markup-free separators do not matter).
             CJK pages, whose gold has no spaces between words (more than 30% of its non-space
             characters are CJK), use the non-space characters instead, and shingles are
             character 4-grams; the gold decides the mode and the extraction is scored the same way.
  shingles   every run of 4 consecutive tokens, as a multiset (Counter); a text of 1-3 tokens
             has one shingle, the whole text.
  P, R, F1   overlap = |ext ∩ gold| (multiset intersection), P = overlap / |ext|,
             R = overlap / |gold|, F1 = 2PR / (P + R). An empty extraction scores P = R = F1 = 0.
Summary: macro P/R/F1 (the mean over pages) and micro F1 (from overlaps and sizes summed over
all pages), overall and per kind (the .json's "kind").
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter

N = 4


def is_cjk(text: str) -> bool:
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return False
    cjk = sum(1 for c in chars if "\u3000" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef" or "\uac00" <= c <= "\ud7af")
    return cjk / len(chars) > 0.3


def tokens(text: str, cjk: bool) -> list[str]:
    if cjk:
        return [c for c in text.lower() if not c.isspace()]
    return re.findall(r"\w+", text.lower())


def shingles(toks: list[str]) -> Counter:
    if not toks:
        return Counter()
    if len(toks) < N:
        return Counter([" ".join(toks)])
    return Counter(" ".join(toks[i:i + N]) for i in range(len(toks) - N + 1))


def score_pair(extracted: str, gold: str) -> dict:
    """P, R, F1 and the raw counts of one extraction against one gold text."""
    cjk = is_cjk(gold)
    e, g = shingles(tokens(extracted, cjk)), shingles(tokens(gold, cjk))
    ne, ng = sum(e.values()), sum(g.values())
    overlap = sum((e & g).values())
    p = overlap / ne if ne else 0.0
    r = overlap / ng if ng else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"p": p, "r": r, "f1": f, "overlap": overlap, "ext": ne, "gold": ng, "cjk": cjk}


def load_corpus(corpus: str) -> list[dict]:
    pages = []
    for f in sorted(os.listdir(corpus)):
        if not f.endswith(".gold.txt"):
            continue
        slug = f[: -len(".gold.txt")]
        meta_path = os.path.join(corpus, slug + ".json")
        try:
            with open(meta_path, encoding="utf-8") as fh:
                meta = json.load(fh)
        except FileNotFoundError:
            raise SystemExit(f"{meta_path}: missing (every gold file needs its .json beside it)")
        with open(os.path.join(corpus, f), encoding="utf-8") as fh:
            pages.append({"slug": slug, "kind": meta.get("kind", "other"), "gold": fh.read()})
    if not pages:
        raise SystemExit(f"{corpus}: no <NN>-<slug>.gold.txt files")
    return pages


def score_dir(pages: list[dict], out_dir: str) -> dict:
    rows = []
    for p in pages:
        path = os.path.join(out_dir, p["slug"] + ".txt")
        text = ""
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        rows.append({"slug": p["slug"], "kind": p["kind"], "missing": not os.path.exists(path), **score_pair(text, p["gold"])})
    return {"pages": rows, "overall": summarize(rows),
            "per_kind": {k: summarize([r for r in rows if r["kind"] == k]) for k in sorted({r["kind"] for r in rows})}}


def summarize(rows: list[dict]) -> dict:
    n = len(rows)
    ov, ne, ng = (sum(r[k] for r in rows) for k in ("overlap", "ext", "gold"))
    mp, mr = (ov / ne if ne else 0.0), (ov / ng if ng else 0.0)
    return {"pages": n,
            "p": sum(r["p"] for r in rows) / n, "r": sum(r["r"] for r in rows) / n, "f1": sum(r["f1"] for r in rows) / n,
            "micro_p": mp, "micro_r": mr, "micro_f1": 2 * mp * mr / (mp + mr) if mp + mr else 0.0}


def main() -> None:
    ap = argparse.ArgumentParser(description="F1 of 4-word shingles between extractions and the gold article bodies.")
    ap.add_argument("corpus")
    ap.add_argument("outputs", nargs="+", help="one or more directories of <NN>-<slug>.txt extractions")
    ap.add_argument("--name", action="append", default=[], help="a name per OUTPUT_DIR, in order (default: the directory's name)")
    ap.add_argument("--json", help="write the per-page and summary numbers here")
    ap.add_argument("--quiet", action="store_true", help="print only the summaries")
    args = ap.parse_args()
    for d in args.outputs:
        if not os.path.isdir(d):
            raise SystemExit(f"{d}: not a directory of extractions")
    names = args.name + [os.path.basename(os.path.normpath(d)) for d in args.outputs[len(args.name):]]
    pages = load_corpus(args.corpus)
    results = [score_dir(pages, d) for d in args.outputs]

    if not args.quiet:
        head = f"{'page':<40} {'kind':<6}" + "".join(f" {n[:20]:>20}" for n in names)
        print(head)
        print(f"{'':<47}" + "".join(f" {'P     R     F1':>20}" for _ in names))
        for i, p in enumerate(pages):
            line = f"{p['slug'][:40]:<40} {p['kind']:<6}"
            for res in results:
                r = res["pages"][i]
                line += f"  {r['p']:5.3f} {r['r']:5.3f} {r['f1']:5.3f}" + ("!" if r["missing"] else " ")
            print(line)
        print("(! = no extraction file: scored as empty)")
        print()
    print(f"{'summary':<22}" + "".join(f" {n[:30]:>30}" for n in names))
    print(f"{'':<22}" + "".join(f" {'P     R     F1  microF1':>30}" for _ in names))
    groups = [("overall", None)] + [(k, k) for k in sorted({p["kind"] for p in pages})]
    for label, kind in groups:
        count = len(pages) if kind is None else sum(1 for p in pages if p["kind"] == kind)
        line = f"{label + f' ({count})':<22}"
        for res in results:
            s = res["overall"] if kind is None else res["per_kind"][kind]
            line += f"       {s['p']:5.3f} {s['r']:5.3f} {s['f1']:5.3f}  {s['micro_f1']:5.3f}"
        print(line)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({n: r for n, r in zip(names, results)}, fh, indent=1)
            fh.write("\n")


if __name__ == "__main__":
    sys.exit(main())
