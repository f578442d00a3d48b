#!/usr/bin/env bash
# bench/article/run.sh: the whole peer measurement in one go.
#   1. setup.sh (the venv with trafilatura, lxml, html5lib), unless ARTICLE_PY names a python
#   2. checks that corpus/ is what texts/ and the skins generate (make_corpus.py --verify)
#   3. trafilatura (default and favor_recall), timed over ROUNDS rounds (default 5)
#   4. the trivial baseline (all text of <body>)
#   5. score.py over all three, side by side; a JSON summary beside the outputs
# Outputs go to bench/article/results/ (git-ignored). Extra OUTPUT_DIRs given as arguments
# (for example a Tributary extractor's output) are scored beside the others.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
RESULTS="$HERE/results"
ROUNDS="${ROUNDS:-5}"
PY="${ARTICLE_PY:-$(bash "$HERE/setup.sh" | tail -1)}"

python3 "$HERE/make_corpus.py" --verify
mkdir -p "$RESULTS"
"$PY" "$HERE/trafilatura_run.py" "$HERE/corpus" "$RESULTS/trafilatura" --rounds "$ROUNDS" \
    --json "$RESULTS/trafilatura-timing.json" | tee "$RESULTS/trafilatura-timing.txt"
"$PY" "$HERE/baseline_run.py" "$HERE/corpus" "$RESULTS/baseline"
names=(--name trafilatura --name trafilatura-recall --name baseline)
for extra in "$@"; do names+=(--name "$(basename "$extra")"); done
python3 "$HERE/score.py" "$HERE/corpus" "$RESULTS/trafilatura" "$RESULTS/trafilatura/recall" \
    "$RESULTS/baseline" "$@" "${names[@]}" --json "$RESULTS/scores.json" | tee "$RESULTS/scores.txt"
