#!/usr/bin/env python3
"""An example Tributary exec plugin (Docs/sources/exec.md).

Protocol: print one JSON object per line on stdout, using the item fields of Docs/contract.md#items
(id, kind, title, summary, url, image, author, published, tags, geo, data). `source`, `type`
and `fetched` are filled in by Tributary; a missing `id` is derived from `url` or `title`.
Anything written to stderr is logged with the source name. Exit 0 on success; a non-zero exit
fails the source. This one turns a local release-notes file into items, so it runs offline.
"""
import json
import os
import sys

# Next to this script (plugins run in their config file's folder, which may be another one).
RELEASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "releases.json")


def main() -> int:
    try:
        with open(RELEASES, encoding="utf-8") as f:
            releases = json.load(f)
    except OSError as e:
        print(f"cannot read {RELEASES}: {e}", file=sys.stderr)
        return 1
    print(f"{len(releases)} releases read", file=sys.stderr)
    for r in releases:
        item = {
            "id": f"release:{r['project']}-{r['version']}",
            "kind": "release",
            "title": f"{r['project']} {r['version']}",
            "summary": r.get("notes", ""),
            "url": r["url"],
            "published": r["date"],
            "tags": r.get("tags", []),
            "data": {"project": r["project"], "version": r["version"]},
        }
        sys.stdout.write(json.dumps(item, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
