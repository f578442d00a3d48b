#!/usr/bin/env python3
"""An exec processor for Tributary: puts a short summary in each item's `summary`.

Tributary writes one item (a compact JSON line) to stdin per item and reads exactly one line
back; this program answers each with the item, its `summary` set. It asks an OpenAI-compatible
chat completions endpoint:

  SUMMARY_API_URL  the API's base URL, e.g. http://127.0.0.1:8080/v1 (or the full
                   .../chat/completions URL)
  SUMMARY_MODEL    the model to ask
  SUMMARY_API_KEY  optional: sent as "Authorization: Bearer <key>"
  SUMMARY_TIMEOUT  optional: seconds per request, default 20 (keep it under the processor's
                   `timeout`)

With --dry it needs no network: the summary is the first sentence of the item's summary (or
its title), without markup, at most 200 characters.

An item it cannot summarise (the endpoint is down, answers an error or something unexpected)
is answered unchanged, and why goes to stderr, which Tributary logs with the source's name.
Python 3 standard library only.
"""

import html
import json
import os
import re
import sys
import urllib.error
import urllib.request

MAX_SUMMARY = 200
MAX_PROMPT_TEXT = 12000
PROMPT = ("Summarise the following post in one or two plain sentences, in the language of "
          "the post. Answer with the summary only.")


def say(message):
    print("summarise.py: " + message, file=sys.stderr, flush=True)


def plain(text):
    """Text without markup, entities decoded, white space collapsed."""
    text = re.sub(r"(?is)<(script|style)\b.*?</\1\s*>", " ", text)
    text = re.sub(r"(?s)<[^>]*>", " ", text)
    return " ".join(html.unescape(text).split())


def shortened(text, limit=MAX_SUMMARY):
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "\u2026"


def first_sentence(text):
    match = re.search(r"^(.+?[.!?\u3002])(\s|$)", text)
    return match.group(1) if match else text


def dry_summary(item):
    for key in ("summary", "title"):
        value = item.get(key)
        if isinstance(value, str):
            text = plain(value)
            if text:
                return shortened(first_sentence(text))
    return None


class Endpoint:
    def __init__(self):
        base = os.environ.get("SUMMARY_API_URL", "").strip()
        self.model = os.environ.get("SUMMARY_MODEL", "").strip()
        missing = [name for name, value in (("SUMMARY_API_URL", base), ("SUMMARY_MODEL", self.model)) if not value]
        if missing:
            raise ValueError(" and ".join(missing) + (" is" if len(missing) == 1 else " are")
                             + " not set (or run with --dry, which needs no network)")
        if not base.startswith(("http://", "https://")):
            raise ValueError("SUMMARY_API_URL must be an http(s) URL, not %r" % base)
        base = base.rstrip("/")
        self.url = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self.key = os.environ.get("SUMMARY_API_KEY", "").strip()
        try:
            self.timeout = float(os.environ.get("SUMMARY_TIMEOUT", "20"))
        except ValueError:
            raise ValueError("SUMMARY_TIMEOUT must be a number of seconds")

    def summary(self, item):
        """The endpoint's summary of the item; raises ValueError saying why there is none."""
        title = item.get("title") if isinstance(item.get("title"), str) else ""
        body = plain(item.get("summary") or "") if isinstance(item.get("summary"), str) else ""
        text = (title + "\n\n" + body[:MAX_PROMPT_TEXT]).strip()
        request = {
            "model": self.model,
            "messages": [{"role": "system", "content": PROMPT}, {"role": "user", "content": text}],
            "temperature": 0.2,
        }
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.key:
            headers["Authorization"] = "Bearer " + self.key
        req = urllib.request.Request(self.url, data=json.dumps(request).encode("utf-8"), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as response:
                raw = response.read(4 << 20)
        except urllib.error.HTTPError as e:
            detail = e.read(300).decode("utf-8", "replace").strip()
            raise ValueError("%s answered HTTP %d%s" % (self.url, e.code, (": " + " ".join(detail.split())) if detail else ""))
        except (urllib.error.URLError, OSError) as e:
            raise ValueError("cannot reach %s: %s" % (self.url, getattr(e, "reason", e)))
        try:
            answer = json.loads(raw)
            content = answer["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ValueError("%s answered something else than a chat completion (choices[0].message.content)" % self.url)
        if not isinstance(content, str) or not content.strip():
            raise ValueError("%s answered an empty summary" % self.url)
        return " ".join(content.split())


def answer(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(argv):
    dry = "--dry" in argv
    unknown = [a for a in argv if a != "--dry"]
    if unknown:
        say("unknown argument %s (usage: summarise.py [--dry])" % unknown[0])
        return 2
    endpoint = None
    if not dry:
        try:
            endpoint = Endpoint()
        except ValueError as e:
            say(str(e))
            return 2
    stdin = sys.stdin.buffer
    while True:
        raw = stdin.readline()
        if not raw:
            return 0
        text = raw.decode("utf-8", "replace").rstrip("\r\n")
        try:
            item = json.loads(text)
            if not isinstance(item, dict):
                raise ValueError("not an object")
        except ValueError as e:
            # One line out for each line in, whatever comes: Tributary says what was wrong.
            say("a line that is not an item (%s)" % e)
            answer(text)
            continue
        try:
            summary = dry_summary(item) if dry else endpoint.summary(item)
            if summary:
                item["summary"] = summary
            else:
                say("%s: nothing to summarise" % item.get("id"))
        except Exception as e:  # never let one item end the loop
            say("%s: left unchanged: %s" % (item.get("id"), e))
        answer(json.dumps(item, ensure_ascii=False, separators=(",", ":")))


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # Tributary went away: nothing to answer to.
        sys.exit(0)
