#!/usr/bin/env bash
# The nats sink's throughput (10,000 items by default) beside nats-py and the NATS C client
# (bench/nats_c_peer.c, the library the sink uses) on its own, against a nats-server
# with JetStream on a free port of 127.0.0.1, with its store in a temporary folder.
#
#   bash bench/nats.sh                 # ITEMS=10000 RUNS=5; TRIBUTARY_BIN=... to take a binary
#
# Needs what `make test-tools` installs (nats-server, the venv with nats-py under
# .build/test-tools/venv) and libnats-dev (`make deps`); builds the release binary when TRIBUTARY_BIN is not given. The table
# is printed and written to bench/results/nats-latest.md (git-ignored). See bench/nats_bench.py.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
ITEMS=${ITEMS:-10000}
RUNS=${RUNS:-5}
log() { printf 'bench: %s\n' "$*" >&2; }

make -C "$ROOT" --no-print-directory test-tools >&2
PY=$ROOT/.build/test-tools/venv/bin/python3
if [ -z "${TRIBUTARY_BIN:-}" ]; then
    make -C "$ROOT" --no-print-directory release >&2
    TRIBUTARY_BIN=$ROOT/.build/release/tributary
fi

work=$(mktemp -d)
server=""
gcc -O2 -o "$work/nats_c_peer" "$HERE/nats_c_peer.c" -lnats
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
nats-server -js -a 127.0.0.1 -p "$port" -sd "$work/store" -l "$work/server.log" &
server=$!
for _ in $(seq 100); do
    "$PY" -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && break
    sleep 0.05
done
log "nats-server $(nats-server --version | sed 's/.* v//') on 127.0.0.1:$port, $ITEMS items, $RUNS rounds"
mkdir -p "$HERE/results"
"$PY" "$HERE/nats_bench.py" "$TRIBUTARY_BIN" "nats://127.0.0.1:$port" "$work" "$ITEMS" "$RUNS" | tee "$HERE/results/nats-latest.md"
