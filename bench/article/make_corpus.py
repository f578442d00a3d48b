#!/usr/bin/env python3
"""Builds the labeled article corpus: for every source file texts/NN-slug.txt, renders the page
with its skin (gen/skins_*.py) and writes corpus/NN-slug.html (encoded in the page's charset),
corpus/NN-slug.gold.txt (the article body, from the same parsed article) and corpus/NN-slug.json
(url, kind, charset, http_charset, skin, notes).

Then it checks what it wrote: every gold block's words appear, in order, in the page's text as a
browser would decode it; no gold paragraph is shared by two pages; the corpus is under the size
budget. Any failure is an error naming the page. Deterministic: the same sources give the same
bytes.

Usage: make_corpus.py [--out DIR] [--check-only | --verify]
"""
from __future__ import annotations

import argparse
import filecmp
import html.parser
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen"))

import skins_blog  # noqa: E402,F401  (registers skins)
import skins_docs  # noqa: E402,F401
import skins_forum  # noqa: E402,F401
import skins_news  # noqa: E402,F401
import skins_other  # noqa: E402,F401
from articledoc import gold_text, parse  # noqa: E402
from pools import rng_for  # noqa: E402
from skinkit import SKINS  # noqa: E402

KINDS = {"news", "blog", "docs", "forum", "other"}
MAX_BYTES = 6 * 1024 * 1024


class _Text(html.parser.HTMLParser):
    """All text of a document outside script/style/template, as a browser's DOM has it."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "template"):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style", "template") and self.skip:
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def _words(text: str, cjk: bool) -> str:
    if cjk:
        return "".join(text.split())
    return " ".join(re.findall(r"\w+", text.lower()))


def _is_cjk(text: str) -> bool:
    chars = [c for c in text if not c.isspace()]
    cjk = sum(1 for c in chars if "\u3000" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef")
    return bool(chars) and cjk / len(chars) > 0.3


def build(out: str, write: bool) -> list[dict]:
    src_dir = os.path.join(HERE, "texts")
    names = sorted(f for f in os.listdir(src_dir) if f.endswith(".txt"))
    if write:
        os.makedirs(out, exist_ok=True)
        for f in os.listdir(out):
            if re.match(r"\d\d-.*\.(html|gold\.txt|json)$", f):
                os.remove(os.path.join(out, f))
    pages, seen_paras, total = [], {}, 0
    for fname in names:
        slug = fname[:-4]
        if not re.match(r"^\d\d-[a-z0-9-]+$", slug):
            raise SystemExit(f"texts/{fname}: expected a name NN-slug.txt (lower-case slug)")
        a = parse(os.path.join(src_dir, fname), slug)
        if a.m("kind") not in KINDS:
            raise SystemExit(f"texts/{fname}: kind must be one of {sorted(KINDS)}, got {a.m('kind')!r}")
        if a.m("skin") not in SKINS:
            raise SystemExit(f"texts/{fname}: unknown skin {a.m('skin')!r} (known: {', '.join(sorted(SKINS))})")
        charset = a.m("charset", "utf-8")
        page = SKINS[a.m("skin")](a, rng_for(slug))
        data = page.encode(charset, errors="xmlcharrefreplace")
        gold = gold_text(a)
        meta = {"url": a.m("url"), "kind": a.m("kind"), "charset": charset,
                "http_charset": a.m("http_charset") or None,
                "declared_in": a.m("declare", "meta"), "skin": a.m("skin"),
                "lang": a.m("lang", "en"), "notes": a.m("notes")}
        _check(slug, data, charset, gold, seen_paras)
        total += len(data)
        if write:
            with open(os.path.join(out, slug + ".html"), "wb") as f:
                f.write(data)
            with open(os.path.join(out, slug + ".gold.txt"), "w", encoding="utf-8") as f:
                f.write(gold)
            with open(os.path.join(out, slug + ".json"), "w", encoding="utf-8") as f:
                json.dump(meta, f, ensure_ascii=False, indent=1)
                f.write("\n")
        pages.append({"slug": slug, "bytes": len(data), "gold_words": len(re.findall(r"\w+", gold)), **meta})
    if total > MAX_BYTES:
        raise SystemExit(f"corpus is {total} bytes, over the budget of {MAX_BYTES}")
    return pages


def _check(slug: str, data: bytes, charset: str, gold: str, seen: dict) -> None:
    p = _Text()
    p.feed(data.decode(charset))
    p.close()
    cjk = _is_cjk(gold)
    page_words = _words(" ".join(p.parts), cjk)
    for block in gold.split("\n\n"):
        w = _words(block, cjk)
        if w and w not in page_words:
            raise SystemExit(f"{slug}: gold block not found in the page's text: {block[:100]!r}")
        if len(w.split()) >= 8 or (cjk and len(w) >= 20):
            if w in seen and seen[w] != slug:
                raise SystemExit(f"{slug}: gold paragraph also in {seen[w]}: {block[:80]!r}")
            seen[w] = slug


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "corpus"))
    ap.add_argument("--check-only", action="store_true", help="render and check, write nothing")
    ap.add_argument("--verify", action="store_true",
                    help="render into a temporary directory and fail unless --out holds exactly those files")
    args = ap.parse_args()
    if args.verify:
        with tempfile.TemporaryDirectory() as tmp:
            pages = build(tmp, True)
            fresh = sorted(os.listdir(tmp))
            have = sorted(f for f in os.listdir(args.out) if re.match(r"\d\d-.*\.(html|gold\.txt|json)$", f))
            if fresh != have:
                raise SystemExit(f"{args.out}: files differ from the sources: missing {sorted(set(fresh) - set(have))}, "
                                 f"extra {sorted(set(have) - set(fresh))}; run make_corpus.py")
            stale = [f for f in fresh if not filecmp.cmp(os.path.join(tmp, f), os.path.join(args.out, f), shallow=False)]
            if stale:
                raise SystemExit(f"{args.out}: {len(stale)} files are out of date ({', '.join(stale[:5])}); run make_corpus.py")
        print(f"{args.out}: up to date with texts/ and the skins")
        return
    pages = build(args.out, not args.check_only)
    kinds: dict[str, int] = {}
    for p in pages:
        kinds[p["kind"]] = kinds.get(p["kind"], 0) + 1
    skins = sorted({p["skin"] for p in pages})
    mb = sum(p["bytes"] for p in pages) / 1e6
    print(f"{len(pages)} pages, {len(skins)} skins, {mb:.2f} MB of HTML; per kind: "
          + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    print(f"gold words: min {min(p['gold_words'] for p in pages)}, max {max(p['gold_words'] for p in pages)}, "
          f"total {sum(p['gold_words'] for p in pages)}; skins: {', '.join(skins)}")


if __name__ == "__main__":
    main()
