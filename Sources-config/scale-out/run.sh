#!/usr/bin/env bash
# The scale-out recipe of Docs/scale-out.md, on one machine and without containers: a
# PostgreSQL server from Debian's `postgresql` package (postgres.sh), a NATS server with
# JetStream from Debian's `nats-server` package, a folder of JSON feeds served on 127.0.0.1 by
# python3's http.server, and three `tributary watch` workers sharing one PostgreSQL state
# (scale-out.json). It runs two rounds (the feeds gain items between them), stops the workers
# with SIGTERM, and checks that every item reached the shared `postgres` sink table once and the
# shared JetStream stream once (its message count, read from the server's monitoring port), and
# that no item is in two workers' jsonl files; it reports how the items fell to the workers. Everything it starts is stopped and its folder removed at exit.
#
#   bash Sources-config/scale-out/run.sh            (make test-tools installs postgresql, nats-server, curl)
#   SOURCES=1000 WORKERS=4 bash Sources-config/scale-out/run.sh
#   TRIBUTARY_BIN=/usr/bin/tributary KEEP=1 bash Sources-config/scale-out/run.sh
#
# SOURCES (default 300), WORKERS (default 3), TRIBUTARY_BIN (default .build/release/tributary,
# else tributary in PATH), KEEP=1 keeps the scratch folder (logs, jsonl files) after the run.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SOURCES=${SOURCES:-300}
WORKERS=${WORKERS:-3}
log() { printf 'scale-out: %s\n' "$*" >&2; }
die() { printf 'scale-out: error: %s\n' "$*" >&2; exit 1; }
[[ "$SOURCES" =~ ^[1-9][0-9]*$ ]] || die "SOURCES must be a positive number"
[[ "$WORKERS" =~ ^[1-9][0-9]?$ ]] || die "WORKERS must be 1..99"
BIN=${TRIBUTARY_BIN:-}
if [ -z "$BIN" ]; then
    if [ -x "$ROOT/.build/release/tributary" ]; then BIN=$ROOT/.build/release/tributary; else BIN=$(command -v tributary) || die "no tributary: make release"; fi
fi
command -v psql > /dev/null || die "psql is missing (apt-get install postgresql)"
command -v nats-server > /dev/null || die "nats-server is missing (apt-get install nats-server)"
command -v curl > /dev/null || die "curl is missing (apt-get install curl): it asks nats-server and the feed server whether they are up"
command -v python3 > /dev/null || die "python3 is missing (apt-get install python3)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tributary-scale-out.XXXXXX")
chmod 755 "$WORK"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    "$HERE/postgres.sh" stop "$WORK/pg" || true
    if [ "${KEEP:-0}" = 1 ]; then log "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. PostgreSQL on a free port of 127.0.0.1.
export TRIBUTARY_STATE_URL
TRIBUTARY_STATE_URL=$("$HERE/postgres.sh" start "$WORK/pg")
log "PostgreSQL: ${TRIBUTARY_STATE_URL/:pw-*@/:***@}"
sql() { psql -X -At -v ON_ERROR_STOP=1 -d "$TRIBUTARY_STATE_URL" -c "$1"; }

# 2. nats-server with JetStream on free ports of 127.0.0.1 (clients, and monitoring for the
#    check), its store in the scratch folder. The workers' nats sinks create the stream.
nats_port=$(free_port)
monitor_port=$(free_port)
nats-server -js -a 127.0.0.1 -p "$nats_port" -m "$monitor_port" -sd "$WORK/nats" -l "$WORK/nats.log" &
pids+=($!)
export TRIBUTARY_NATS_URL=nats://127.0.0.1:$nats_port
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$monitor_port/healthz" > /dev/null 2>&1 && break; sleep 0.1; done
curl -fs "http://127.0.0.1:$monitor_port/healthz" > /dev/null || die "nats-server did not start: $(tail -5 "$WORK/nats.log")"
log "NATS: $TRIBUTARY_NATS_URL (JetStream)"
stream_messages() { curl -fs "http://127.0.0.1:$monitor_port/jsz" | python3 -c 'import json, sys; print(json.load(sys.stdin)["messages"])'; }

# 3. The feeds: source s<n> serves s<n>-1 .. s<n>-<round>, and every source also serves
#    shared-<round> (one item found by every source: emitted once between all workers).
mkdir -p "$WORK/feeds" "$WORK/out"
write_feeds() {
    python3 - "$WORK/feeds" "$SOURCES" "$1" <<'PY'
import json, os, sys
folder, sources, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for n in range(sources):
    items = [{"id": f"s{n}-{k}", "title": f"item {k} of s{n}"} for k in range(1, rounds + 1)]
    items += [{"id": f"shared-{k}", "title": f"shared item {k}"} for k in range(1, rounds + 1)]
    tmp = os.path.join(folder, f".s{n}.json")
    with open(tmp, "w") as f: json.dump({"items": items}, f)
    os.replace(tmp, os.path.join(folder, f"s{n}.json"))
PY
}
write_feeds 1
port=$(free_port)
python3 -m http.server --bind 127.0.0.1 --directory "$WORK/feeds" "$port" > "$WORK/http.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/s0.json" > /dev/null 2>&1 && break; sleep 0.1; done

# 4. One config for every worker (what each machine would hold): the shared state, a local
#    jsonl file per worker, the shared postgres sink table and JetStream stream.
python3 - "$HERE/scale-out.json" "$WORK/tributary.json" "$SOURCES" "$port" <<'PY'
import json, sys
template, out, sources, port = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
config = json.load(open(template))
source = config["sources"][0]
config["sources"] = [dict(source, name=f"s{n}", url=f"http://127.0.0.1:{port}/s{n}.json") for n in range(sources)]
json.dump(config, open(out, "w"), indent=1)
PY
"$BIN" check -c "$WORK/tributary.json"

# 5. The workers.
start=$(date +%s.%N)
for w in $(seq "$WORKERS"); do
    TRIBUTARY_WORKER=w$w "$BIN" watch -c "$WORK/tributary.json" --worker "w$w" 2> "$WORK/w$w.log" &
    pids+=($!)
done
log "$WORKERS workers watching $SOURCES sources (logs in $WORK/w*.log)"

# Waits until the shared table holds $1 items (bounded: 120 s). The jsonl and nats sinks come
# before it in the config, so a batch in the table is in a jsonl file and the stream too.
wait_items() {
    for _ in $(seq 1200); do
        n=$(sql "SELECT count(*) FROM tributary.items" 2>/dev/null || echo 0)
        [ "$n" -ge "$1" ] && return 0
        sleep 0.1
    done
    die "only $n of $1 items arrived within 120 s; see $WORK/w*.log"
}
wait_items $(( SOURCES + 1 ))
log "round 1: $SOURCES sources in $(python3 -c "import time; print(f'{time.time() - $start:.1f}')") s"
write_feeds 2
wait_items $(( SOURCES * 2 + 2 ))
log "round 2: every source fetched again and delivered"
for p in "${pids[@]:2}"; do kill -TERM "$p"; done
for p in "${pids[@]:2}"; do
    status=0; wait "$p" || status=$?
    [ "$status" = 143 ] || die "a worker exited $status, not 143; see $WORK/w*.log"
done
pids=("${pids[@]:0:2}")

# 6. The checks.
expected=$(( SOURCES * 2 + 2 ))
in_table=$(sql "SELECT count(*) FROM tributary.items")
in_stream=$(stream_messages)
distinct_jsonl=$(cat "$WORK"/out/*.jsonl | python3 -c 'import json, sys; print(len({json.loads(l)["id"] for l in sys.stdin}))')
lines_jsonl=$(cat "$WORK"/out/*.jsonl | wc -l)
log "items: $expected served, $in_table in the postgres table, $in_stream in the JetStream stream, $lines_jsonl lines ($distinct_jsonl ids) in the jsonl files"
by_worker=$(for w in $(seq "$WORKERS"); do printf ' w%s %s' "$w" "$(cat "$WORK/out/w$w.jsonl" 2>/dev/null | grep -c . || true)"; done)
log "items per worker:$by_worker (a worker leases up to 4 x http.concurrency due sources at a look: a few sources may all go to one)"
[ "$in_table" = "$expected" ] || die "the table holds $in_table items, expected $expected"
[ "$in_stream" = "$expected" ] || die "the stream holds $in_stream messages, expected $expected"
[ "$distinct_jsonl" = "$expected" ] && [ "$lines_jsonl" = "$expected" ] || die "the jsonl files hold $lines_jsonl lines and $distinct_jsonl ids, expected $expected once each"
log "ok: every item once between $WORKERS workers"
