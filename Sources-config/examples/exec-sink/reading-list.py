#!/usr/bin/env python3
"""An example program for Tributary's exec sink (Docs/sinks/exec.md).

Tributary runs it once per batch, in its config file's folder, with the batch's items on stdin
as JSON Lines (the fields of Docs/contract.md#items). It appends one Markdown line per item to
out/reading-list.md (or the file given as its argument) and exits 0 once the lines are on disk:
only then are the items recorded as written. A non-zero exit fails the sink; Tributary quotes
the last line printed on stderr and hands the same items over again on the next run.
"""
import json
import os
import sys


def line(item: dict) -> str:
    title = item["title"].replace("[", "\\[").replace("]", "\\]")
    when = (item.get("published") or item["fetched"])[:10]
    link = f"[{title}]({item['url']})" if "url" in item else title
    return f"- {when} {link} ({item['source']})\n"


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else "out/reading-list.md"
    lines = [line(json.loads(raw)) for raw in sys.stdin.buffer.read().decode("utf-8").splitlines() if raw]
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "a", encoding="utf-8") as f:
            f.writelines(lines)
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        print(f"cannot append to {path}: {e.strerror}", file=sys.stderr)
        return 1
    print(f"{len(lines)} items appended to {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
