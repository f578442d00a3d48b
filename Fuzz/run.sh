#!/usr/bin/env bash
# Fuzz/run.sh [SECONDS] [TARGET...]: builds the libFuzzer binary once, then fuzzes each target
# (all of them when none is named) for SECONDS (default 600), two at a time, each on a scratch
# copy of its seed corpus. Exits non-zero, naming the target and the input, when any target
# crashed, hung (-timeout), leaked or went over the memory limit. Fuzz/README.md has the details.
#
# Environment:
#   FUZZ_JOBS=2        targets fuzzed at once
#   FUZZ_OUT=DIR       where the runs go (default .build/fuzz-runs/<date>-<time>)
#   FUZZ_SCRATCH=DIR   swift build --scratch-path of the fuzz build (default .build/fuzz)
#   FUZZ_NO_BUILD=1    use the binary already built
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ALL=(json config feed-xml json-feed m3u channels-json dates sizes-durations keypath html-text redactor recording article-html)
DURATION=${1:-600}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL[@]}")
JOBS=${FUZZ_JOBS:-2}
SCRATCH=${FUZZ_SCRATCH:-$ROOT/.build/fuzz}
OUT=${FUZZ_OUT:-$ROOT/.build/fuzz-runs/$(date +%Y%m%d-%H%M%S)}

case $DURATION in '' | *[!0-9]*) echo "usage: Fuzz/run.sh [SECONDS] [TARGET...]" >&2; exit 2 ;; esac
for t in "${TARGETS[@]}"; do
    case " ${ALL[*]} " in *" $t "*) ;; *) echo "unknown target '$t' (known: ${ALL[*]})" >&2; exit 2 ;; esac
done

log() { echo "[fuzz $(date +%H:%M:%S)] $*" >&2; }

# The largest input per target: whole documents up to 1 MiB, short strings up to 4 KiB.
max_len() {
    case $1 in
        dates | sizes-durations | keypath | redactor) echo 4096 ;;
        html-text) echo 65536 ;;
        *) echo 1048576 ;;
    esac
}

dict() {
    case $1 in
        json | config | json-feed | channels-json | recording) echo json ;;
        feed-xml | article-html) echo xml ;;
        dates) echo dates ;;
        m3u) echo m3u ;;
        html-text) echo text ;;
        redactor) echo url ;;
        sizes-durations) echo values ;;
        *) echo "" ;;
    esac
}

# Both sanitizers go in one -sanitize= flag: swift-driver keeps only the last -sanitize= it is
# given, so `--sanitize fuzzer --sanitize address` would build without coverage. `--sanitize
# fuzzer` is still passed so SwiftPM links the executable without an entry point of its own.
BUILD=(swift build --product TributaryFuzz --scratch-path "$SCRATCH" -c release --sanitize fuzzer
       -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xswiftc -parse-as-library)
if [ -z "${FUZZ_NO_BUILD:-}" ]; then
    log "building: TRIBUTARY_FUZZ=1 ${BUILD[*]}"
    (cd "$ROOT" && TRIBUTARY_FUZZ=1 "${BUILD[@]}" >&2)
fi
BIN=$(cd "$ROOT" && TRIBUTARY_FUZZ=1 "${BUILD[@]}" --show-bin-path)/TributaryFuzz
[ -x "$BIN" ] || { echo "no fuzz binary at $BIN" >&2; exit 2; }

mkdir -p "$OUT"
export SWIFT_BACKTRACE=enable=no  # the Swift backtracer can hold the pipe for minutes after a crash
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:handle_abort=1:symbolize=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/Fuzz/lsan.supp:print_suppressions=0}
command -v llvm-symbolizer >/dev/null && export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$(command -v llvm-symbolizer)}

# One target: fork mode with crashes, hangs and OOMs ignored, so a long run keeps looking after
# the first finding; every finding is an artifact in $OUT/<target>/artifacts.
fuzz_one() {
    local t=$1 dir=$OUT/$1
    mkdir -p "$dir/corpus" "$dir/artifacts"
    cp -R "$ROOT/Fuzz/corpus/$t/." "$dir/corpus/" 2>/dev/null || true
    local args=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1
                -max_total_time="$DURATION" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$t")"
                -artifact_prefix="$dir/artifacts/" -print_final_stats=1)
    local d
    d=$(dict "$t")
    [ -n "$d" ] && args+=(-dict="$ROOT/Fuzz/dict/$d.dict")
    log "$t: ${DURATION}s, log $dir/fuzz.log"
    # The parent process exits non-zero when a child found something; the artifacts tell what.
    (cd "$dir" && TRIBUTARY_FUZZ_TARGET=$t timeout -k 30 $((DURATION + 300)) "$BIN" "${args[@]}" corpus >fuzz.log 2>&1) || true
    echo "$t" >"$dir/done"
}

running=0
for t in "${TARGETS[@]}"; do
    if [ "$running" -ge "$JOBS" ]; then wait -n || true; running=$((running - 1)); fi
    fuzz_one "$t" &
    running=$((running + 1))
done
wait || true

# Each finding is run once more on its own, for its stack (first Tributary frames, demangled).
demangle() { if command -v swift-demangle >/dev/null; then swift-demangle --simplified; else cat; fi; }
failed=0
printf '\n%-16s %8s %12s %8s  %s\n' target seconds executions corpus findings >&2
for t in "${TARGETS[@]}"; do
    dir=$OUT/$t
    execs=$(grep -o '^#[0-9]*' "$dir/fuzz.log" 2>/dev/null | tail -1 | tr -d '#' || true)
    secs=$(grep -o 'exiting: [0-9]* time: [0-9]*' "$dir/fuzz.log" 2>/dev/null | tail -1 | awk '{print $4}' || true)
    corpus=$(find "$dir/corpus" -type f | wc -l)
    mapfile -t found < <(find "$dir/artifacts" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | sort)
    printf '%-16s %8s %12s %8s  %s\n' "$t" "${secs:-?}" "${execs:-?}" "$corpus" "${#found[@]}" >&2
    [ "$(cat "$dir/done" 2>/dev/null)" = "$t" ] || { echo "FAIL $t: the fuzzer did not finish (see $dir/fuzz.log)" >&2; failed=1; }
    [ ${#found[@]} -gt 0 ] || continue
    failed=1
    declare -A seen=()
    for f in "${found[@]:0:10}"; do
        (cd "$dir" && TRIBUTARY_FUZZ_TARGET=$t timeout -k 10 120 "$BIN" -timeout=10 -rss_limit_mb=2048 "$f" >"$f.txt" 2>&1) || true
        sig=$(grep -E '^ *#[0-9]+ .* in .*Tributary' "$f.txt" | grep -v 'FuzzTargets.swift' | head -3 | sed -E 's/^ *#[0-9]+ 0x[0-9a-f]+ in ([^ ]+).*/\1/' | demangle | tr '\n' '|' || true)
        kind=$(grep -m1 -oE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer): [A-Za-z -]+' "$f.txt" || basename "$f" | cut -d- -f1)
        key="$kind $sig"
        [ -n "${seen[$key]:-}" ] && continue
        seen[$key]=1
        echo "FAIL $t: $(basename "$f" | cut -d- -f1) $f" >&2
        echo "    $kind" >&2
        grep -m1 -E 'Fatal error|fuzz property violated|SUMMARY' "$f.txt" | sed 's/^/    /' >&2 || true
        grep -E '^ *#[0-9]+ .* in .*Tributary' "$f.txt" | head -6 | demangle | sed 's/^/    /' >&2 || true
    done
    unset seen
    [ ${#found[@]} -gt 10 ] && echo "    (${#found[@]} findings in $dir/artifacts; the first 10 were run again)" >&2
done
if [ "$failed" -ne 0 ]; then
    echo "fuzz: FAILED (runs in $OUT; minimize an input with: TRIBUTARY_FUZZ_TARGET=<target> $BIN -minimize_crash=1 -runs=10000 <file>)" >&2
    exit 1
fi
echo "fuzz: ${#TARGETS[@]} targets, ${DURATION}s each, no crash, hang, leak or OOM (runs in $OUT)" >&2
