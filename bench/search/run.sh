#!/usr/bin/env bash
# The search benchmark (bench/README.md, "search"): a 1,000,000-item sqlite sink file (made by
# the sink, filled by build.py with gen.py's items), then `tributary search` timed beside the
# sqlite3 CLI and Python's sqlite3 on the same FTS5 query.
#   bash bench/search/run.sh            # ITEMS=1000000 RUNS=7
#   ITEMS=50000 bash bench/search/run.sh   # a quick check
# The file is kept under bench/results/search/ (git-ignored) and reused while ITEMS is the same;
# KEEP=0 makes it again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ITEMS=${ITEMS:-1000000}
RUNS=${RUNS:-7}
out="$root/bench/results/search"
mkdir -p "$out"
command -v sqlite3 >/dev/null || apt-get install -y sqlite3
bin=${TRIBUTARY_BIN:-}
if [ -z "$bin" ]; then
    (cd "$root" && swift build -c release --product tributary --static-swift-stdlib)
    bin="$root/.build/release/tributary"
fi
db="$out/items-$ITEMS.sqlite"
if [ "${KEEP:-1}" = 0 ] || [ ! -s "$db" ]; then
    rm -f "$db" "$db-wal" "$db-shm"
    # The sink makes the file (its tables, index and triggers) from gen.py's first 1,000 items;
    # build.py adds the rest with the sink's upsert.
    python3 "$here/gen.py" --items 1000 > "$out/first.jsonl"
    cat > "$out/build.json" <<JSON
{"sources":[{"name":"bench","type":"exec","command":["cat","$out/first.jsonl"]}],"sinks":[{"type":"sqlite","path":"$db"}]}
JSON
    "$bin" run -c "$out/build.json" --no-state --quiet
    echo "building $db: $ITEMS items" >&2
    python3 "$here/build.py" "$db" --items "$ITEMS" 2>&1 | tail -1 | tee "$out/build.txt" >&2
fi
python3 "$here/gen.py" --vocabulary > "$out/vocabulary.txt"
TRIBUTARY_BIN="$bin" python3 "$here/measure.py" "$db" --rounds "$RUNS" --vocabulary "$out/vocabulary.txt" | tee "$root/bench/results/search-latest.md"
