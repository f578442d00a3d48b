#!/usr/bin/env python3
"""The story corpus (Tests/Fixtures/stories/corpus.json) through peers of the story matcher, for
the comparison in Docs/stories.md:

- FreshRSS-like: an item is a copy when an earlier item has the same link or the same title,
  exactly as written (FreshRSS's "identical title" and GUID/link unicity, applied across every
  source instead of one category);
- exact canonical: the same with this library's canonical URL and normalized title (what is left
  when near-duplicates are not looked for), from `tributary-stories-bench export`;
- datasketch MinHashLSH (128 permutations) over the words of the lower-cased title (the word
  shingles of its documentation's example), at its default threshold 0.9 and at the 0.5 of the
  example, with and without word pairs (2-shingles), plus the same link.

Items go in the order they were fetched; an item joins the story of the earliest earlier item it
matches. Each peer runs twice: as is, and with the 72-hour window this library applies to title
matches (FreshRSS compares with the newest articles of a category only: the window is the fair
analogue). Pairwise precision and recall as in PairwiseScore.swift.

    python3 -m venv .build/peers-venv && .build/peers-venv/bin/pip install datasketch
    swift build -c release --product tributary-stories-bench
    .build/peers-venv/bin/python bench/stories_peers.py [CORPUS]
"""
import json
import os
import re
import subprocess
import sys
from collections import Counter

from datasketch import MinHash, MinHashLSH

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pairwise(truth, predicted):
    both = Counter(zip(truth, predicted))
    t = Counter(truth)
    p = Counter(predicted)
    tp = sum(n * (n - 1) // 2 for n in both.values())
    tt = sum(n * (n - 1) // 2 for n in t.values())
    pp = sum(n * (n - 1) // 2 for n in p.values())
    return (tp / pp if pp else 1.0, tp / tt if tt else 1.0)


def report(name, items, stories):
    truth = [i["truth"] for i in items]
    p, r = pairwise(truth, stories)
    keep = [k for k, i in enumerate(items) if i["edit"] != "rewrite"]
    _, rc = pairwise([truth[k] for k in keep], [stories[k] for k in keep])
    print(f"| {name} | {p:.4f} | {r:.4f} | {rc:.4f} |")


WITHIN = 72 * 3600


def seconds(s):
    import datetime
    return int(datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc).timestamp())


def when(i):
    return seconds(i.get("published") or i["fetched"])


def exact(items, url_of, title_of, window):
    by_url, by_title, stories = {}, {}, []
    for k, i in enumerate(items):
        u, t = url_of(i), title_of(i)
        s = None
        if u and u in by_url:
            s = by_url[u]
        elif t and t in by_title:
            earlier = [j for j in by_title[t] if not window or abs(when(items[j]) - when(i)) <= WITHIN]
            if earlier:
                s = stories[min(earlier)]
        if s is None:
            s = k
        stories.append(s)
        if u:
            by_url.setdefault(u, s)
        if t:
            by_title.setdefault(t, []).append(k)
    return stories


def words(title):
    return re.findall(r"\w+", title.lower())


def minhash_lsh(items, threshold, shingle, window):
    lsh = MinHashLSH(threshold=threshold, num_perm=128)
    by_url, stories = {}, []
    for k, i in enumerate(items):
        w = words(i["title"])
        grams = set(w) if shingle == 1 else {" ".join(w[j:j + 2]) for j in range(max(1, len(w) - 1))}
        m = MinHash(num_perm=128)
        for g in grams:
            m.update(g.encode("utf-8"))
        s = None
        u = i.get("url")
        if u and u in by_url:
            s = by_url[u]
        else:
            found = [int(x) for x in lsh.query(m)] if grams else []
            if window:
                found = [j for j in found if abs(when(items[j]) - when(i)) <= WITHIN]
            if found:
                s = stories[min(found)]
        if s is None:
            s = k
        stories.append(s)
        if grams:
            lsh.insert(str(k), m)
        if u:
            by_url.setdefault(u, s)
    return stories


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "Tests", "Fixtures", "stories", "corpus.json")
    items = json.load(open(path, encoding="utf-8"))["items"]
    items.sort(key=lambda i: (i["fetched"], i["id"]))
    bench = os.path.join(ROOT, ".build", "release", "tributary-stories-bench")
    forms = {}
    out = subprocess.run([bench, "export", path], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        o = json.loads(line)
        forms[o["id"]] = o
    print(f"{len(items)} items, {len(set(i['truth'] for i in items))} stories\n")
    print("| method | precision | recall | recall without rewrites |")
    print("|---|---|---|---|")
    for window in (False, True):
        w = ", titles within 72 h" if window else ""
        report(f"FreshRSS-like: same link or same title{w}", items, exact(items, lambda i: i.get("url"), lambda i: i["title"], window))
        report(f"exact canonical URL or normalized title{w}", items,
               exact(items, lambda i: forms[i["id"]]["url"], lambda i: forms[i["id"]]["title"], window))
        for threshold in (0.9, 0.5):
            for shingle in (1, 2):
                report(f"datasketch MinHashLSH {threshold}, word {'' if shingle == 1 else '2-'}shingles + same link{w}", items,
                       minhash_lsh(items, threshold, shingle, window))
    quality = subprocess.run([bench, "quality", path], check=True, capture_output=True, text=True).stdout.splitlines()
    print("\ntributary-stories-bench quality:", *quality, sep="\n")


if __name__ == "__main__":
    main()
