#!/usr/bin/env python3
"""Items for the search benchmark, as the exec source's JSON lines (one object per line).

    python3 gen.py --part K --parts P --items N [--seed S]

prints part K (0-based) of N items split into P parts, so P exec sources make the corpus
together. Text is drawn from one vocabulary with a Zipf distribution (s = 1.1): 300 common
English words take the top ranks, then 40,000 made-up words (syllables), so a few words are in
most items and most words in few, as in real text. Titles 5-10 words, summaries 15-30, content
3-6 sentences of 6-14 words. Every part draws from the same seeded pool, so a corpus is the same on every machine.
"""
import argparse, json, random, sys

COMMON = """the of and to in a is that for it as was with be by on not he this are or his from at which
but have an they you were her she there been one all we their has would when if so no will more
can its other about out up time them into only some could new these two may first then do any like
my now over such our man me even most made after also did many before must through back years
where much your way well down should because each just those people how too little state good
very make world still own see men work long get here between both life being under never day
same another know while last might us great old year off come since against go came right used
take three city river water council report police school market price bank game team season
court health train road bridge plan budget energy power weather storm flood fire election vote
minister party government house street town village port harbour music film book art museum
festival church club coach player match goal win loss league cup final coffee food restaurant
farm crop wheat rain snow wind summer winter spring autumn morning evening night week month
company business job worker strike union factory steel copper oil gas price tax rate inflation
hospital doctor nurse patient child family student teacher university research science study
data software code computer network internet phone mobile app release update version security
""".split()

SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in ["a", "e", "i", "o", "u", "ai", "ou", "ea"]]


def vocabulary(rng, size=40000):
    words, seen = list(dict.fromkeys(COMMON)), set(COMMON)
    while len(words) < len(COMMON) + size:
        w = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) + rng.choice(["", "", "n", "s", "r", "t", "l"])
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


def pool(seed, size=4_000_000):
    """`size` words drawn by Zipf rank; items are slices of it at random places."""
    rng = random.Random(seed)
    words = vocabulary(rng)
    weights, acc = [], 0.0
    for rank in range(1, len(words) + 1):
        acc += 1.0 / rank ** 1.1
        weights.append(acc)
    return words, rng.choices(words, cum_weights=weights, k=size)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", type=int, default=0)
    ap.add_argument("--parts", type=int, default=1)
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--vocabulary", action="store_true", help="print the vocabulary by rank, one word a line")
    a = ap.parse_args()
    words, drawn = pool(a.seed)
    if a.vocabulary:
        sys.stdout.write("\n".join(words) + "\n")
        return
    rng = random.Random(a.seed * 1000 + a.part)
    n = len(drawn)
    per = (a.items + a.parts - 1) // a.parts
    start, end = a.part * per, min(a.items, (a.part + 1) * per)
    out = sys.stdout
    base = 1_700_000_000  # November 2023; two years of items after it
    buf = []
    for i in range(start, end):
        def text(lo, hi):
            k = rng.randint(lo, hi)
            at = rng.randrange(0, n - k)
            return " ".join(drawn[at:at + k])
        t = text(5, 10)
        item = {
            "id": f"bench:{i}",
            "title": t[0].upper() + t[1:],
            "summary": text(15, 30).capitalize() + ".",
            "content": ". ".join(text(6, 14).capitalize() for _ in range(rng.randint(3, 6))) + ".",
            "url": f"https://news.example.org/{i}",
            "published": base + rng.randrange(0, 2 * 365 * 86400),
            "tags": [drawn[rng.randrange(0, n)]],
        }
        buf.append(json.dumps(item, separators=(",", ":")))
        if len(buf) >= 2000:
            out.write("\n".join(buf) + "\n")
            buf.clear()
    if buf:
        out.write("\n".join(buf) + "\n")


if __name__ == "__main__":
    main()
