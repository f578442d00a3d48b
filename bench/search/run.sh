#!/usr/bin/env bash
# The search benchmark (bench/README.md, "search"): a 1,000,000-item sqlite sink file made by
# `tributary run` from bench/search/gen.py's items (4 exec sources, --no-state), then
# `tributary search` timed beside the sqlite3 CLI and Python's sqlite3 on the same FTS5 query.
#   bash bench/search/run.sh            # ITEMS=1000000 PARTS=4 RUNS=7
#   ITEMS=50000 bash bench/search/run.sh   # a quick check
# The file is kept under bench/results/search/ (git-ignored) and reused while ITEMS is the same;
# KEEP=0 makes it again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ITEMS=${ITEMS:-1000000}
PARTS=${PARTS:-4}
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
    sources=""
    for ((k = 0; k < PARTS; k++)); do
        sources+="${sources:+,}{\"name\":\"part$k\",\"type\":\"exec\",\"timeout\":\"60m\",\"command\":[\"python3\",\"$here/gen.py\",\"--part\",\"$k\",\"--parts\",\"$PARTS\",\"--items\",\"$ITEMS\"]}"
    done
    cat > "$out/build.json" <<JSON
{"sources":[$sources],"sinks":[{"type":"sqlite","path":"$db"}]}
JSON
    echo "building $db: $ITEMS items through tributary run (exec sources -> sqlite sink)" >&2
    start=$(date +%s.%N)
    /usr/bin/time -v "$bin" run -c "$out/build.json" --no-state --quiet 2> "$out/build.time"
    end=$(date +%s.%N)
    echo "built in $(echo "$end - $start" | bc) s, peak RSS $(grep 'Maximum resident' "$out/build.time" | awk '{print $6/1024}') MiB, $(du -m "$db" | cut -f1) MiB" | tee "$out/build.txt" >&2
fi
python3 "$here/gen.py" --vocabulary > "$out/vocabulary.txt"
TRIBUTARY_BIN="$bin" python3 "$here/measure.py" "$db" --rounds "$RUNS" --vocabulary "$out/vocabulary.txt" | tee "$root/bench/results/search-latest.md"
