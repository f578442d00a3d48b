#!/usr/bin/env python3
"""Times `tributary search` beside its peers on one sqlite sink file (bench/README.md, search).

    python3 measure.py DB [--rounds 7] [--queries FILE] [--bin PATH]

For each two-word query, in rounds whose order rotates (every tool takes every position):
  - tributary: `tributary search --db DB QUERY --limit 20` (a process: start, open, query, print)
  - sqlite3:   `sqlite3 -readonly DB "<the same SQL>"` (a process)
  - python:    `python3 -c` running the same SQL through the sqlite3 module (a process)
  - in-process: the same SQL on one open connection in this Python process, i.e. FTS5's own
    cost with no process start (the floor for anything that runs the query)
Prints a Markdown table of medians (ms) and the matches each query has.
"""
import argparse, json, os, sqlite3, statistics, subprocess, sys, time

SQL = ("SELECT i.id, i.source, i.type, i.kind, i.title, i.summary, i.content, i.url, i.image, i.author, i.published, i.fetched, i.tags, i.lat, i.lon, i.data "
       "FROM (SELECT rowid AS r FROM items_fts WHERE items_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2) AS m "
       "JOIN items AS i ON i.seq = m.r ORDER BY m.r DESC")

PY = ("import sqlite3,sys\n"
      "c=sqlite3.connect('file:'+sys.argv[1]+'?mode=ro',uri=True)\n"
      "for r in c.execute(sys.argv[3],(sys.argv[2],20)): print(r[4], r[7])\n")


def timed(argv):
    t = time.perf_counter()
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    dt = (time.perf_counter() - t) * 1000
    if r.returncode not in (0, 1):
        sys.exit(f"{argv[0]} failed ({r.returncode}): {r.stderr.decode()[:400]}")
    return dt, r.stdout.count(b"\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--bin", default=os.environ.get("TRIBUTARY_BIN", "tributary"))
    ap.add_argument("--queries", nargs="*")
    ap.add_argument("--vocabulary", help="gen.py --vocabulary's output: queries of words by rank")
    a = ap.parse_args()
    queries = a.queries or ["the of", "river city", "council budget", "storm flood"]
    if a.vocabulary and not a.queries:
        words = open(a.vocabulary).read().split()
        # Two words each, by Zipf rank (1 = the most common): common, middling, rare, very rare.
        queries += [f"{words[i]} {words[j]}" for i, j in [(400, 1000), (2000, 5000), (10000, 30000)]]
    conn = sqlite3.connect("file:" + a.db + "?mode=ro", uri=True)
    total = conn.execute("SELECT count(*) FROM items").fetchone()[0]
    sql_literal = lambda q: SQL.replace("?1", "'" + q.replace("'", "''") + "'").replace("?2", "20")

    def inproc(q):
        t = time.perf_counter()
        rows = conn.execute(SQL, (q, 20)).fetchall()
        return (time.perf_counter() - t) * 1000, len(rows)

    tools = {
        "tributary search": lambda q: timed([a.bin, "search", "--db", a.db, q, "--limit", "20"]),
        "sqlite3 CLI": lambda q: timed(["sqlite3", "-readonly", a.db, sql_literal(q)]),
        "python3 sqlite3": lambda q: timed([sys.executable, "-c", PY, a.db, q, SQL]),
        "in-process (python)": inproc,
    }
    names = list(tools)
    rows = []
    for q in queries:
        matches = conn.execute("SELECT count(*) FROM items_fts WHERE items_fts MATCH ?", (q,)).fetchone()[0]
        for n in names:  # warm-up, untimed: the page cache holds what a query reads
            tools[n](q)
        times = {n: [] for n in names}
        printed = {}
        for r in range(a.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            if r % 2:
                order.reverse()
            for n in order:
                dt, lines = tools[n](q)
                times[n].append(dt)
                printed[n] = lines
        rows.append((q, matches, {n: statistics.median(times[n]) for n in names}, printed))
    # The process start alone (an empty query answer is not possible; `--version` starts and exits).
    start = statistics.median(timed([a.bin, "--version"])[0] for _ in range(a.rounds))
    print(f"{total:,} items in {a.db} ({os.path.getsize(a.db) / 2**20:,.0f} MiB); medians of {a.rounds} rounds, ms; load average {os.getloadavg()[0]:.2f}")
    print()
    print("| query | matches | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for q, m, med, printed in rows:
        print(f"| `{q}` | {m:,} | " + " | ".join(f"{med[n]:.1f}" for n in names) + " |")
    print()
    print(f"`tributary --version` (start and exit, no query): {start:.1f} ms")
    lines = {n: rows[0][3][n] for n in names}
    print(f"lines printed for the first query: {json.dumps(lines)}")


if __name__ == "__main__":
    main()
