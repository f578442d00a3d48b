#!/usr/bin/env bash
# bench/article/setup.sh: the Python venv the article-extraction peer tooling runs in.
#
# Creates a venv at ${ARTICLE_VENV:-/work/main/.build/article-venv} and installs, from PyPI,
# trafilatura (the peer), lxml (the trivial baseline) and html5lib, at the pinned versions
# below. Idempotent: when the venv exists and imports all three at the pinned trafilatura
# version, it does nothing. Installs python3-venv with apt-get first when `python3 -m venv`
# is unavailable (Debian splits it out). Prints the venv's python on its last line.
set -euo pipefail

TRAFILATURA_VERSION=2.3.1
LXML_VERSION=6.2.0
HTML5LIB_VERSION=1.1
# lxml 6 moved lxml.html.clean out; justext (a trafilatura dependency) imports it.
LXML_HTML_CLEAN_VERSION=0.4.6

VENV="${ARTICLE_VENV:-/work/main/.build/article-venv}"
PY="$VENV/bin/python3"

if [ -x "$PY" ] && "$PY" - "$TRAFILATURA_VERSION" <<'EOF' 2>/dev/null
import sys, importlib.metadata as m
import trafilatura, lxml, html5lib, lxml_html_clean
sys.exit(0 if m.version("trafilatura") == sys.argv[1] else 1)
EOF
then
    echo "article venv present: $VENV (trafilatura $TRAFILATURA_VERSION)" >&2
    echo "$PY"
    exit 0
fi

if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    echo "python3 -m venv is unavailable: installing python3-venv (apt-get)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends python3-venv >&2 \
        || { apt-get update >&2 && apt-get install -y --no-install-recommends python3-venv >&2; }
fi

echo "creating $VENV and installing trafilatura==$TRAFILATURA_VERSION lxml==$LXML_VERSION html5lib==$HTML5LIB_VERSION lxml_html_clean==$LXML_HTML_CLEAN_VERSION (pip)" >&2
mkdir -p "$(dirname "$VENV")"
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check \
    "trafilatura==$TRAFILATURA_VERSION" "lxml==$LXML_VERSION" "html5lib==$HTML5LIB_VERSION" "lxml_html_clean==$LXML_HTML_CLEAN_VERSION" >&2
"$PY" -c 'import trafilatura, lxml, html5lib, lxml_html_clean' \
    || { echo "setup.sh: $VENV was created but cannot import trafilatura, lxml and html5lib" >&2; exit 1; }
echo "$PY"
