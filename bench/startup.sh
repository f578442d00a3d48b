#!/usr/bin/env bash
# Start-up time of the self-contained release binary, beside `jq -n 1`.
#
#   bash bench/startup.sh
#
# Builds `tributary` in release with the Swift runtime linked in (the binary users get), then
# runs, RUNS times each and side by side in one run:
#   tributary --version
#   tributary check -c Sources-config/demo.json
#   jq -n 1
# The order of the three rotates every round, so drift on the machine hits all of them alike.
# Prints the median wall time (process start to exit, as seen by the parent), the median CPU
# time (user + system, from wait4) and the ratio to jq, as a Markdown table, also written to
# bench/results/startup.md. The target is a median of at most 5 ms for both tributary commands.
# See bench/README.md and Docs/PERFORMANCE.md ("Start-up").
#
# Environment:
#   RUNS=200          runs per command (at least 50; the median is reported)
#   TRIBUTARY_BIN=    use this binary instead of building one
#   BENCH_SCRATCH=    pass --scratch-path to swift build (default: the package's .build)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
RESULTS=$HERE/results
RUNS=${RUNS:-200}

log() { printf 'startup: %s\n' "$*" >&2; }
die() { printf 'startup: error: %s\n' "$*" >&2; exit 1; }

[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] && (( RUNS >= 50 )) || die "RUNS must be an integer of at least 50"
mkdir -p "$RESULTS"

SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
if ! command -v jq >/dev/null; then
    log "installing jq (apt-get)"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq jq >/dev/null
fi
command -v python3 >/dev/null || die "python3 is required"

if [ -n "${TRIBUTARY_BIN:-}" ]; then
    BIN=$TRIBUTARY_BIN
else
    SCRATCH_ARGS=()
    [ -n "${BENCH_SCRATCH:-}" ] && SCRATCH_ARGS=(--scratch-path "$BENCH_SCRATCH")
    log "building the static release binary (swift build -c release --static-swift-stdlib)"
    (cd "$ROOT" && swift build -c release --product tributary --static-swift-stdlib "${SCRATCH_ARGS[@]}" >&2)
    BIN=$(cd "$ROOT" && swift build -c release --product tributary --static-swift-stdlib "${SCRATCH_ARGS[@]}" --show-bin-path)/tributary
fi
[ -x "$BIN" ] || die "no executable at $BIN"
case "$BIN" in /*) ;; *) BIN=$PWD/$BIN ;; esac

read -r load _ < /proc/loadavg
if python3 -c "import sys, os; sys.exit(0 if float('$load') < 0.5 * os.cpu_count() else 1)"; then :; else
    log "warning: load average $load: the machine is busy, numbers will be noisy"
fi

cd "$ROOT"
python3 - "$BIN" "$RUNS" "$RESULTS/startup.md" "$load" <<'PY'
import os, subprocess, sys, time, statistics, platform, datetime

binary, runs, out_path, load = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
commands = [
    ("tributary --version", [binary, "--version"]),
    ("tributary check -c Sources-config/demo.json", [binary, "check", "-c", "Sources-config/demo.json"]),
    ("jq -n 1", ["jq", "-n", "1"]),
]
devnull = os.open(os.devnull, os.O_RDWR)

def once(argv):
    """Wall and CPU seconds of one run; its output goes to /dev/null."""
    start = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[
        (os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, usage = os.wait4(pid, 0)
    wall = (time.perf_counter_ns() - start) / 1e9
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"startup: {' '.join(argv)} exited {code}")
    return wall, usage.ru_utime + usage.ru_stime

for _, argv in commands:  # warm the page cache; not counted
    for _ in range(5):
        once(argv)

walls = {name: [] for name, _ in commands}
cpus = {name: [] for name, _ in commands}
for r in range(runs):
    k = r % len(commands)
    for name, argv in commands[k:] + commands[:k]:
        w, c = once(argv)
        walls[name].append(w)
        cpus[name].append(c)

def ms(x):
    return f"{x * 1000:.2f}"

jq_wall = statistics.median(walls["jq -n 1"])
rows = []
for name, _ in commands:
    w = sorted(walls[name])
    med = statistics.median(w)
    p10, p90 = w[len(w) // 10], w[(len(w) * 9) // 10]
    target = "" if name.startswith("jq") else ("yes" if med <= 0.005 else "NO")
    rows.append(f"| `{name}` | {ms(med)} | {ms(p10)} | {ms(p90)} | {ms(statistics.median(cpus[name]))} | {med / jq_wall:.2f}x | {target} |")

cpu = "unknown"
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
except OSError:
    pass
header = [
    f"Start-up, {datetime.date.today().isoformat()}, {platform.node()}: {os.cpu_count()} cores, {cpu}, "
    f"Linux {platform.release()}, load average {load} at the start.",
    f"Binary: {binary}. {runs} runs of each command, order rotated every round; medians.",
    "",
    "| command | median wall ms | p10 ms | p90 ms | median CPU ms | wall vs jq | <= 5 ms |",
    "|---|---|---|---|---|---|---|",
]
text = "\n".join(header + rows) + "\n"
print(text, end="")
with open(out_path, "w") as f:
    f.write(text)
PY
