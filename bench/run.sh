#!/usr/bin/env bash
# Tributary's first benchmark: the `json` source over a loopback corpus, beside jq and orjson.
#
#   bash bench/run.sh            (or: make bench)
#
# Builds tributary in release, generates bench/corpus/ if missing, serves it from a loopback
# HTTP/1.1 server, then fetches + maps + writes JSON Lines for every page with three tools:
#   tributary  `tributary run -c results/tributary-bench.json --jsonl --no-state --quiet`
#   jq         `curl --parallel --parallel-max 32 ... | jq -c -f bench/map.jq`
#   orjson     `python3 bench/peer_orjson.py` (32 threads, keep-alive, orjson)
# RUNS times each, interleaved, and prints the median wall time, items/s and peak RSS as a
# Markdown table (also written to bench/results/latest.md). See bench/README.md.
#
# Environment:
#   RUNS=3            runs per tool (the median is reported)
#   SERVER=nginx      the corpus server: nginx (installed if missing) or python (bench/serve.py)
#   PAGES=2000        pages fetched per run (the corpus is generated with at least this many)
#   TRIBUTARY_BIN=    use this binary instead of building one
#   BENCH_SCRATCH=    pass --scratch-path to swift build (default: the package's .build)
#   KEEP_OUTPUT=1     keep each tool's last output in bench/results/out-*.jsonl
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
RESULTS=$HERE/results
CORPUS=$HERE/corpus
RUNS=${RUNS:-3}
PAGES=${PAGES:-2000}
ITEMS_PER_PAGE=50
EXPECTED=$((PAGES * ITEMS_PER_PAGE))
CONCURRENCY=32

log() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }

[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer"
[[ "$PAGES" =~ ^[1-9][0-9]*$ ]] && (( PAGES <= 9999 )) || die "PAGES must be 1..9999"
mkdir -p "$RESULTS"

# ---- tools -------------------------------------------------------------------------------
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
apt_install() {
    log "installing $* (apt-get)"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}
[ -x /usr/bin/time ] || apt_install time
command -v jq >/dev/null || apt_install jq
command -v curl >/dev/null || apt_install curl
command -v python3 >/dev/null || die "python3 is required"
if ! python3 -c 'import orjson' 2>/dev/null; then
    log "installing orjson (pip)"
    python3 -m pip install --quiet orjson || die "pip install orjson failed"
fi

# ---- tributary (release) -----------------------------------------------------------------
if [ -n "${TRIBUTARY_BIN:-}" ]; then
    BIN=$TRIBUTARY_BIN
else
    SCRATCH_ARGS=()
    [ -n "${BENCH_SCRATCH:-}" ] && SCRATCH_ARGS=(--scratch-path "$BENCH_SCRATCH")
    log "building tributary (swift build -c release --product tributary ${SCRATCH_ARGS[*]:-})"
    (cd "$ROOT" && swift build -c release --product tributary "${SCRATCH_ARGS[@]}" >&2)
    BIN=$(cd "$ROOT" && swift build -c release --show-bin-path "${SCRATCH_ARGS[@]}")/tributary
fi
[ -x "$BIN" ] || die "no tributary binary at $BIN"

# ---- corpus ------------------------------------------------------------------------------
have=0
[ -d "$CORPUS" ] && have=$(find "$CORPUS" -maxdepth 1 -name 'page-*.json' | wc -l)
if (( have < PAGES )); then
    log "generating the corpus ($PAGES pages) in $CORPUS"
    rm -rf "$CORPUS"
    python3 "$HERE/gen_corpus.py" --pages "$(( PAGES > 2000 ? PAGES : 2000 ))" --out "$CORPUS"
fi

# ---- loopback server ---------------------------------------------------------------------
SERVER_PID=""
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tributary-bench.XXXXXX")
cleanup() {
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
    if [ "${KEEP_OUTPUT:-0}" != 1 ]; then rm -f "$RESULTS"/out-*.jsonl; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The corpus server. nginx (default) serves static files far faster than any client here can
# use them, so the tools are measured, not the server; SERVER=python uses bench/serve.py, which
# is itself the bottleneck (curl alone needs ~2.8 s for the corpus from it, 0.14 s from nginx).
SERVER=${SERVER:-nginx}
if [ "$SERVER" = nginx ]; then
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || apt_install nginx-light
    PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    mkdir -p "$WORK/nginx"
    cat > "$WORK/nginx/nginx.conf" <<NGINX
daemon off;
master_process off;
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$PORT;
        root $CORPUS;
        default_type application/json;
    }
}
NGINX
    /usr/sbin/nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" &
    SERVER_PID=$!
    for _ in $(seq 1 100); do
        curl -sf -o /dev/null "http://127.0.0.1:$PORT/page-0001.json" && break
        kill -0 "$SERVER_PID" 2>/dev/null || die "nginx exited early: $(cat "$WORK/nginx/error.log" 2>/dev/null)"
        sleep 0.1
    done
else
    python3 "$HERE/serve.py" "$CORPUS" > "$WORK/port" &
    SERVER_PID=$!
    PORT=""
    for _ in $(seq 1 300); do   # up to 30 s to load the corpus and bind
        PORT=$(head -n1 "$WORK/port" 2>/dev/null || true)
        [ -n "$PORT" ] && break
        kill -0 "$SERVER_PID" 2>/dev/null || die "the corpus server exited early"
        sleep 0.1
    done
fi
[[ "$PORT" =~ ^[0-9]+$ ]] || die "the corpus server did not report a port"
BASE="http://127.0.0.1:$PORT"
log "corpus server ($SERVER) on $BASE (pid $SERVER_PID)"

# URL list and the Tributary config.
URLS=$RESULTS/urls.txt
for i in $(seq -f %04g 1 "$PAGES"); do echo "$BASE/page-$i.json"; done > "$URLS"
CFG=$RESULTS/tributary-bench.json
python3 - "$URLS" "$CFG" "$CONCURRENCY" <<'EOF'
import json, sys
urls = [u.strip() for u in open(sys.argv[1]) if u.strip()]
n = int(sys.argv[3])
cfg = {
    "$comment": "generated by bench/run.sh; the URLs point at a loopback server that is gone after the run",
    "http": {"concurrency": n, "per_host": n},
    "sources": [{
        "name": "bench",
        "type": "json",
        "urls": urls,
        "items": "items",
        "fields": {
            "id": "id.videoId",
            "title": "snippet.title",
            "summary": "snippet.description",
            "image": "snippet.thumbnails.high.url",
            "author": "snippet.channelTitle",
            "published": "snippet.publishedAt",
            "data": {"channel_id": "snippet.channelId", "live_broadcast_content": "snippet.liveBroadcastContent"},
        },
    }],
}
with open(sys.argv[2], "w") as f:
    json.dump(cfg, f, indent=2)
    f.write("\n")
EOF
"$BIN" check -c "$CFG" >/dev/null 2>"$WORK/check.err" || { cat "$WORK/check.err" >&2; die "tributary check failed"; }

# Warm-up request: the server is answering before the first timed run starts.
curl -sS -o /dev/null "$BASE/page-0001.json"

# ---- one timed run -----------------------------------------------------------------------
# Prints "wall_seconds peak_rss_kib server_cpu_seconds cpu_seconds" and leaves the output in $RESULTS/out-<tool>.jsonl.
server_cpu_ticks() { awk '{print $14 + $15}' "/proc/$SERVER_PID/stat"; }
field() { awk -F': ' -v k="$1" '$0 ~ k {print $2}' "$2"; }
wall_seconds() {  # "Elapsed (wall clock) time (h:mm:ss or m:ss)" -> seconds
    field "Elapsed \\(wall clock\\)" "$1" | awk -F: '{s=0; for (i=1; i<=NF; i++) s = s*60 + $i; printf "%.3f", s}'
}
run_tool() {
    local tool=$1 out=$RESULTS/out-$1.jsonl t=$WORK/time-$1 rc=0 before after fetched
    before=$(server_cpu_ticks)
    case $tool in
    tributary)
        /usr/bin/time -v -o "$t" "$BIN" run -c "$CFG" --jsonl --no-state --quiet > "$out" 2>"$WORK/err-$tool" || rc=$?
        rss=$(field "Maximum resident set size" "$t")
        ;;
    jq)
        fetched=$(date -u +%Y-%m-%dT%H:%M:%SZ)
        # curl and jq run side by side in one pipeline; its peak RSS is counted as the sum of both peaks.
        /usr/bin/time -v -o "$t" bash -c '
            set -o pipefail
            /usr/bin/time -v -o "$1.curl" curl -sS --fail --no-progress-meter --parallel --parallel-max "$2" "$3/page-[0001-$(printf %04d "$4")].json" \
            | /usr/bin/time -v -o "$1.jq" jq -c --arg source bench --arg fetched "$5" -f "$6"
        ' _ "$t" "$CONCURRENCY" "$BASE" "$PAGES" "$fetched" "$HERE/map.jq" > "$out" 2>"$WORK/err-$tool" || rc=$?
        rss=$(( $(field "Maximum resident set size" "$t.curl") + $(field "Maximum resident set size" "$t.jq") ))
        ;;
    orjson)
        /usr/bin/time -v -o "$t" python3 "$HERE/peer_orjson.py" --threads "$CONCURRENCY" "$URLS" > "$out" 2>"$WORK/err-$tool" || rc=$?
        rss=$(field "Maximum resident set size" "$t")
        ;;
    esac
    after=$(server_cpu_ticks)
    if [ "$rc" != 0 ]; then
        log "$tool failed (exit $rc):"; tail -n 20 "$WORK/err-$tool" >&2
        return 1
    fi
    local lines; lines=$(wc -l < "$out")
    if [ "$lines" != "$EXPECTED" ]; then
        log "$tool wrote $lines items, expected $EXPECTED"; tail -n 20 "$WORK/err-$tool" >&2
        return 1
    fi
    # CPU = user + system time of the tool and its children (for jq: bash, curl and jq).
    local cpu; cpu=$(awk -v u="$(field "User time" "$t")" -v s="$(field "System time" "$t")" 'BEGIN{printf "%.2f", u + s}')
    printf '%s %s %s %s\n' "$(wall_seconds "$t")" "$rss" "$(awk -v a="$before" -v b="$after" -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.2f", (b-a)/hz}')" "$cpu"
}

# Same items from every tool? Compare the outputs with `fetched` removed, as sorted lines.
normalized_digest() { sed 's/"fetched":"[^"]*",//' "$1" | LC_ALL=C sort | md5sum | cut -d' ' -f1; }

# Everything here shares the machine's cores with whatever else runs: say so when it is busy.
LOAD_BEFORE=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$LOAD_BEFORE" 'BEGIN{exit !(l > 0.5)}'; then
    log "warning: load average is $LOAD_BEFORE before the runs; other work on this machine skews the numbers"
fi

TOOLS=(tributary jq orjson)
declare -A SAMPLES DIGEST
log "$RUNS run(s) of each tool over $PAGES pages ($EXPECTED items), interleaved"
for run in $(seq 1 "$RUNS"); do
    for tool in "${TOOLS[@]}"; do
        r=$(run_tool "$tool") || die "$tool run $run failed"
        SAMPLES[$tool]+="$r"$'\n'
        log "run $run  $(printf '%-9s' "$tool")  wall $(cut -d' ' -f1 <<<"$r") s  CPU $(cut -d' ' -f4 <<<"$r") s  peak RSS $(( $(cut -d' ' -f2 <<<"$r") / 1024 )) MiB  server CPU $(cut -d' ' -f3 <<<"$r") s"
        if [ "$run" = 1 ]; then DIGEST[$tool]=$(normalized_digest "$RESULTS/out-$tool.jsonl"); fi
    done
done
same="yes"
for tool in jq orjson; do
    [ "${DIGEST[$tool]}" = "${DIGEST[tributary]}" ] || same="no ($tool differs from tributary)"
done

# ---- report ------------------------------------------------------------------------------
median() { sort -n | awk '{a[NR]=$1} END{ if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2 }'; }
declare -A WALL RSS SRV CPU
for tool in "${TOOLS[@]}"; do
    WALL[$tool]=$(printf '%s' "${SAMPLES[$tool]}" | awk 'NF{print $1}' | median)
    RSS[$tool]=$(printf '%s' "${SAMPLES[$tool]}" | awk 'NF{print $2}' | median)
    SRV[$tool]=$(printf '%s' "${SAMPLES[$tool]}" | awk 'NF{print $3}' | median)
    CPU[$tool]=$(printf '%s' "${SAMPLES[$tool]}" | awk 'NF{print $4}' | median)
done
REPORT=$RESULTS/latest.md
{
    echo "## Tributary benchmark: \`json\` source, $PAGES pages x $ITEMS_PER_PAGE items over loopback HTTP/1.1"
    echo
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $(uname -sr); median of $RUNS runs; concurrency $CONCURRENCY; load average $LOAD_BEFORE before, $(cut -d' ' -f1 /proc/loadavg) after."
    echo "Corpus: $(du -sb --apparent-size "$CORPUS" | awk -v n="$(find "$CORPUS" -maxdepth 1 -name 'page-*.json' | wc -l)" '{printf "%d pages, %.1f KB/page average", n, $1/n/1000}'). Same items from all three (sorted, \`fetched\` removed): $same."
    echo
    echo "| tool | wall s | items/s | peak RSS MiB | vs orjson | CPU s | server CPU s |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    for tool in "${TOOLS[@]}"; do
        awk -v t="$tool" -v w="${WALL[$tool]}" -v r="${RSS[$tool]}" -v o="${WALL[orjson]}" -v n="$EXPECTED" -v s="${SRV[$tool]}" -v c="${CPU[$tool]}" \
            'BEGIN{printf "| %s | %.2f | %.0f | %.1f | %.2fx | %.2f | %.2f |\n", t, w, n/w, r/1024, o/w, c, s}'
    done
    echo
    echo "vs orjson = orjson's wall time / the tool's (higher is faster; the target for tributary is 1.5x)."
    echo "CPU s = user + system time of the tool (for jq: curl + jq); server CPU s = the loopback server's CPU during the run."
    echo
    echo "Every run (wall s, CPU s, peak RSS KiB):"
    for tool in "${TOOLS[@]}"; do
        echo "- $tool: $(printf '%s' "${SAMPLES[$tool]}" | awk 'NF{printf "%s%s s / %s s / %s", sep, $1, $4, $2; sep="; "}')"
    done
    echo
    echo "Tools: $("$BIN" --version 2>&1 | head -n1) (release), $(jq --version), $(curl --version | head -n1 | cut -d' ' -f1-2), Python $(python3 -c 'import platform; print(platform.python_version())') + orjson $(python3 -c 'import orjson; print(orjson.__version__)'), $(swift --version 2>&1 | grep -m1 -o 'Swift version [^ ]*')."
} > "$REPORT"
cat "$REPORT"
log "wrote $REPORT"
