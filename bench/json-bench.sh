#!/usr/bin/env bash
# JSON layer benchmark (bench/README.md, "JSON layer"): MB/s of every mode of
# tributary-json-bench, then allocations per page (valgrind memcheck's heap summary) and peak
# heap (valgrind massif), each minus the `load` mode, which only reads the corpus.
#   ROUNDS (7): timed rounds per mode     VG_PAGES (20): pages for the valgrind runs
#   BENCH_SCRATCH (.build): --scratch-path of the release build
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH=${BENCH_SCRATCH:-.build}
ROUNDS=${ROUNDS:-7}
VG_PAGES=${VG_PAGES:-20}
MODES="tape-parse tape tape-write tree recursive-parse recursive"

[ -f bench/corpus/page-0001.json ] || python3 bench/gen_corpus.py
swift build -c release --product tributary-json-bench --scratch-path "$SCRATCH"
BIN="$SCRATCH/release/tributary-json-bench"

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (MB/s of CPU time is the steadier figure on a busy machine)"
for mode in $MODES; do "$BIN" "$mode" --rounds "$ROUNDS"; done

if ! command -v valgrind >/dev/null; then
    echo "valgrind not installed: no allocation counts (apt-get install valgrind)"
    exit 0
fi
# "total heap usage: N allocs, N frees, B bytes allocated" -> "N B"
allocs() {
    valgrind --tool=memcheck "$BIN" "$1" --pages "$VG_PAGES" --rounds 1 2>&1 >/dev/null |
        sed -n 's/.*total heap usage: \([0-9,]*\) allocs, [0-9,]* frees, \([0-9,]*\) bytes allocated.*/\1 \2/p' | tr -d ,
}
peak() {
    local out
    out=$(mktemp)
    valgrind --tool=massif --massif-out-file="$out" "$BIN" "$1" --pages "$VG_PAGES" --rounds 1 >/dev/null 2>&1
    # The largest heap snapshot (useful heap plus allocator overhead), in bytes.
    awk -F= '/^mem_heap_B=/{h=$2} /^mem_heap_extra_B=/{if (h+$2 > m) m = h+$2} END{print m}' "$out"
    rm -f "$out"
}
read -r base_allocs base_bytes <<<"$(allocs load)"
base_peak=$(peak load)
echo "valgrind, $VG_PAGES pages, minus the load mode ($base_allocs allocations, $((base_peak / 1024)) KiB peak heap):"
for mode in $MODES; do
    read -r n b <<<"$(allocs "$mode")"
    p=$(peak "$mode")
    printf '  %-16s %6d allocations, %5d KiB allocated per page   peak heap +%d KiB\n' "$mode" \
        $(( (n - base_allocs) / VG_PAGES )) $(( (b - base_bytes) / VG_PAGES / 1024 )) $(( (p - base_peak) / 1024 ))
done
