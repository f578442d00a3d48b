#!/usr/bin/env bash
# Tributary's benchmarks, each beside the fastest ordinary tools for the same job.
#
#   bash bench/run.sh [decode|fetch|many|startup|jq|stories|fulltext|all|serve|soak|watch|instructions]   (default: decode)
#
#   decode   2,000 JSON pages (59 MB) from nginx, 32 in flight: tributary with 2,000 sources and
#            with one source of 2,000 urls, aiohttp+orjson, curl --parallel | jq
#   fetch    1,000 URLs answered after 100 ms, 25 KB each, 50 and 200 in flight, bodies of one item
#            (plus padding) and of 45 items (FETCH_ITEMS="1 45"): tributary (one source of 1,000
#            urls, and 1,000 sources), curl --parallel --parallel-immediate, aiohttp
#   many     10,000 sources of one ~570-byte page each: tributary (and a 1-source baseline for
#            memory per source), curl -K <url file>, aiohttp
#   startup  tributary --version, tributary check -c Sources-config/demo.json, jq -n 1
#   jq       a jq program as the jq processor, beside `tributary run --jsonl | jq -c`
#   stories  the stories stage on the decode corpus (2,000 sources, action tag, no state) beside
#            the same run without it, then the matcher alone with a million stories remembered
#            (tributary-stories-bench bench, built here unless STORIES_BENCH_BIN is given)
#   all      the six above, in that order
#   fulltext the fulltext processor on 1,000 article pages from nginx beside trafilatura's
#            extract() alone (bench/article/speed.py; its venv from bench/article/setup.sh); not
#            part of all
#   serve    only start nginx on the corpora (for profiling by hand) until Ctrl-C
#   soak     `tributary watch` polling 300 sources of a loopback server for SOAK_SECONDS
#            (default 630: 10.5 minutes), RSS, open fds and threads sampled from /proc, every
#            item checked once at the end (bench/soak.py; needs only python3); not part of all
#   watch    watch at scale: `tributary watch` on 10,000 sources of the many corpus, interval
#            WATCH_INTERVAL (60 s), no jitter, nginx answering 304, WATCH_CYCLES (10) cycles;
#            CPU and RSS per cycle beside curl --etag-compare/--etag-save run half an interval
#            after each cycle (about 10 minutes); not part of all
#   instructions  the decode's first INSTR_PAGES (300) pages as one source under callgrind, without a
#            state and with a fresh SQLite state: the instructions of tributary and of
#            TRIBUTARY_BASELINE_BIN, to compare two builds where timed runs are too noisy (valgrind
#            with apt-get); not a peer comparison, not part of all
#
# This script installs what is missing (GNU time, nginx-light, jq, curl with apt-get; aiohttp, orjson,
# uvloop with pip), builds tributary in release (or takes TRIBUTARY_BIN), generates the corpora
# under bench/corpus/ when missing, then runs bench/harness.py, which does the measuring and
# writes bench/results/<mode>-latest.md. See bench/README.md for the knobs and how to read
# the tables.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
CORPUS=$HERE/corpus
MODE=${1:-decode}

log() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }

case $MODE in
decode|fetch|many|startup|jq|stories|fulltext|all|serve|soak|watch|instructions) ;;
-h|--help|help) sed -n '2,39p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) die "unknown mode '$MODE'; modes: decode fetch many startup jq stories fulltext all serve soak watch instructions" ;;
esac
[ $# -le 1 ] || die "one mode at a time (or: all)"
PAGES=${PAGES:-2000}
MANY=${MANY:-10000}
[[ "$PAGES" =~ ^[1-9][0-9]*$ ]] && (( PAGES <= 9999 )) || die "PAGES must be 1..9999"
[[ "$MANY" =~ ^[1-9][0-9]*$ ]] && (( MANY >= 2 && MANY <= 99999 )) || die "MANY must be 2..99999"

# soak needs none of the peers' tools or corpora: python3 and the binary only.
if [ "$MODE" = soak ]; then
    command -v python3 >/dev/null || die "python3 is required"
    BIN=${TRIBUTARY_BIN:-}
    if [ -z "$BIN" ]; then
        log "building tributary (swift build -c release --product tributary --static-swift-stdlib)"
        (cd "$ROOT" && swift build -c release --product tributary --static-swift-stdlib >&2)
        BIN=$(cd "$ROOT" && swift build -c release --show-bin-path)/tributary
    fi
    case "$BIN" in /*) ;; *) BIN=$PWD/$BIN ;; esac
    exec python3 "$HERE/soak.py" --bin "$BIN"
fi

# ---- tools -------------------------------------------------------------------------------
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
APT_UPDATED=0
apt_install() {
    log "installing $* (apt-get)"
    if [ "$APT_UPDATED" = 0 ]; then $SUDO apt-get update -qq; APT_UPDATED=1; fi
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}
command -v python3 >/dev/null || die "python3 is required"
[ -x /usr/bin/time ] || apt_install time
command -v jq >/dev/null || apt_install jq
command -v curl >/dev/null || apt_install curl
[ "$MODE" != instructions ] || command -v valgrind >/dev/null || apt_install valgrind
if [ "$MODE" != startup ] && ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
    apt_install nginx-light
fi
for mod in aiohttp orjson; do
    if ! python3 -c "import $mod" 2>/dev/null; then
        log "installing $mod (pip)"
        python3 -m pip install --quiet "$mod" || die "pip install $mod failed"
    fi
done
if ! python3 -c 'import uvloop' 2>/dev/null; then   # the fetch mode's server is faster with it
    log "installing uvloop (pip)"
    python3 -m pip install --quiet uvloop || log "uvloop not installed; the fetch server uses plain asyncio"
fi

# ---- tributary (release) -----------------------------------------------------------------
export TRIBUTARY_BUILT=0
if [ -n "${TRIBUTARY_BIN:-}" ]; then
    BIN=$TRIBUTARY_BIN
else
    SCRATCH_ARGS=()
    [ -n "${BENCH_SCRATCH:-}" ] && SCRATCH_ARGS=(--scratch-path "$BENCH_SCRATCH")
    log "building tributary (swift build -c release --product tributary --static-swift-stdlib ${SCRATCH_ARGS[*]:-})"
    (cd "$ROOT" && swift build -c release --product tributary --static-swift-stdlib "${SCRATCH_ARGS[@]}" >&2)
    BIN=$(cd "$ROOT" && swift build -c release --show-bin-path "${SCRATCH_ARGS[@]}")/tributary
    TRIBUTARY_BUILT=1
fi
[ -x "$BIN" ] || die "no tributary binary at $BIN"
case "$BIN" in /*) ;; *) BIN=$PWD/$BIN ;; esac
export TRIBUTARY_BIN=$BIN

# ---- corpora (generated once, git-ignored) -----------------------------------------------
count_pages() { [ -d "$1" ] && find "$1" -maxdepth 1 -name 'page-*.json' | wc -l || echo 0; }
if [[ "$MODE" =~ ^(decode|jq|all|serve|instructions)$ ]] && (( $(count_pages "$CORPUS") < PAGES )); then
    log "generating the decode corpus ($(( PAGES > 2000 ? PAGES : 2000 )) pages) in $CORPUS"
    mkdir -p "$CORPUS"
    find "$CORPUS" -maxdepth 1 -name 'page-*.json' -delete
    python3 "$HERE/gen_corpus.py" --pages "$(( PAGES > 2000 ? PAGES : 2000 ))" --out "$CORPUS"
fi
if [[ "$MODE" =~ ^(many|all|serve|watch)$ ]] && (( $(count_pages "$CORPUS/many") < MANY )); then
    log "generating the many corpus ($(( MANY > 10000 ? MANY : 10000 )) one-item pages) in $CORPUS/many"
    rm -rf "$CORPUS/many"
    python3 "$HERE/gen_corpus.py" --pages "$(( MANY > 10000 ? MANY : 10000 ))" --items 1 --lean \
        --target-bytes 567 --width 5 --out "$CORPUS/many"
fi

# The processing stage's own tools: the story matcher's bench; trafilatura's venv.
if [[ "$MODE" =~ ^(stories|all)$ ]] && [ -z "${STORIES_BENCH_BIN:-}" ]; then
    log "building tributary-stories-bench (swift build -c release --product tributary-stories-bench --static-swift-stdlib)"
    (cd "$ROOT" && swift build -c release --product tributary-stories-bench --static-swift-stdlib >&2)
    STORIES_BENCH_BIN=$(cd "$ROOT" && swift build -c release --show-bin-path)/tributary-stories-bench
fi
export STORIES_BENCH_BIN=${STORIES_BENCH_BIN:-}
if [ "$MODE" = fulltext ]; then
    ARTICLE_PYTHON=$(bash "$HERE/article/setup.sh" | tail -n 1)
    export ARTICLE_VENV=$(dirname "$(dirname "$ARTICLE_PYTHON")")
    exec python3 "$HERE/article/speed.py"
fi

export PAGES MANY
exec python3 "$HERE/harness.py" "$MODE"
