#!/usr/bin/env bash
# Builds the reproducer at -O and at -Onone and prints what each build returns, then names the
# first LLVM pass that breaks it (opt-bisect). Run from anywhere: bash check.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
swiftc -O -parse-as-library "$here/repro.swift" -o "$out/O"
swiftc -Onone -parse-as-library "$here/repro.swift" -o "$out/Onone"
echo "-O:";     "$out/O"
echo "-Onone:"; "$out/Onone"
swiftc -O -parse-as-library "$here/repro.swift" -o "$out/nollvm" -Xfrontend -disable-llvm-optzns
echo "-O with LLVM optimizations off:"; "$out/nollvm"
if "$out/O" | grep -q '^banned:  MISCOMPILED'; then
  lo=0; hi=100000
  while [ $((hi - lo)) -gt 1 ]; do
    mid=$(((lo + hi) / 2))
    swiftc -O -parse-as-library "$here/repro.swift" -o "$out/b" -Xllvm -opt-bisect-limit=$mid 2>/dev/null
    if "$out/b" | grep -q '^banned:  ok'; then lo=$mid; else hi=$mid; fi
  done
  echo "first LLVM pass that breaks it:"
  swiftc -O -parse-as-library "$here/repro.swift" -o "$out/b" -Xllvm -opt-bisect-limit=$hi 2>&1 | grep "($hi)" || true
fi
