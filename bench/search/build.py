#!/usr/bin/env python3
"""Fills an sqlite sink file with gen.py's items, the sink's way, without the engine.

    python3 build.py DB --items N

DB must have been made by the sink (run.sh runs `tributary run` with a few items first), so
the tables, index and triggers are the sink's own; this adds the items with the sink's upsert
and its `seq` (published seconds x 2^20 + 20 bits of the id's FNV-1a hash, the next free number
on a clash), 20,000 a transaction. Through `tributary run` the same items cost the same FTS5
indexing plus the engine's JSON decoding; this is the quicker way to a large file.
"""
import argparse, json, re, sqlite3, subprocess, sys, time, os

here = os.path.dirname(os.path.abspath(__file__))
SINK = os.path.join(here, "../../Sources/TributaryPlugins/Sinks/SQLite/SQLiteSink.swift")


def seq(item):
    h = 0xcbf29ce484222325
    for b in item["id"].encode():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return max(0, int(item["published"])) << 20 | (h & 0xFFFFF)


def rfc3339(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--items", type=int, default=1_000_000)
    a = ap.parse_args()
    upsert = re.search(r'static let upsert = """\n(.*?)\n\s*"""', open(SINK).read(), re.S).group(1)
    c = sqlite3.connect(a.db, isolation_level=None)
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("PRAGMA cache_size=-262144")
    gen = subprocess.Popen([sys.executable, os.path.join(here, "gen.py"), "--items", str(a.items)], stdout=subprocess.PIPE, text=True)
    fetched = rfc3339(time.time())
    n, start = 0, time.time()
    c.execute("BEGIN")
    for line in gen.stdout:
        it = json.loads(line)
        s = seq(it)
        while True:
            row = c.execute("SELECT id FROM items WHERE seq = ?", (s,)).fetchone()
            if row is None or row[0] == it["id"]:
                break
            s += 1
        c.execute(upsert, (it["id"], "bench", "exec", "entry", it["title"], it["summary"], it["content"], it["url"], None, None,
                           rfc3339(it["published"]), fetched, json.dumps(it["tags"], separators=(",", ":")), None, None, None, s))
        n += 1
        if n % 20000 == 0:
            c.execute("COMMIT")
            print(f"{n:,} items, {time.time() - start:.0f} s", file=sys.stderr, flush=True)
            c.execute("BEGIN")
    c.execute("COMMIT")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    print(f"{n:,} items in {time.time() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
