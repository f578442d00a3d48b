"""The article source format: one text file per corpus page under bench/article/texts/.

A file is a header of `key: value` lines, a line `---`, the body blocks, and optionally a
section `===comments===` (comments, forum replies or Q&A answers). The same parsed Article
gives both the page's HTML (through a skin) and its gold text (`gold_text`), so the gold is
exactly the article text the HTML carries.

Body blocks, separated by blank lines:
  plain lines            a paragraph (its lines joined with one space)
  ## text / ### text     a heading inside the body (gold)
  - item / 1. item       an unordered / ordered list, one item a line (gold: one item a line)
  > text                 a blockquote quoting a source (gold)
  >> text                a pull quote repeating body text (NOT gold)
  [fig NAME] caption     a figure with its caption (gold: the caption)
  | a | b |              table rows, the first one the header (gold: one row a line, " | ")
  ```lang ... ```        a code block (gold: its lines as they are)
  [note TITLE] text      an admonition / callout (gold: title line, then the text)
  [ad] [readalso] [signup] [related] [recipe]
                         places where the skin puts boilerplate inside the body (never gold)
Inline: *em*, **strong**, `code`, [text](url); the gold has their text only.

Comments: entries start with `@ field | field | ...` (author first, then date and what the
skin wants: votes, "accepted"), followed by paragraphs. Comments are never gold.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

MARKERS = {"[ad]", "[readalso]", "[signup]", "[related]", "[recipe]"}


@dataclass
class Block:
    kind: str  # para heading ul ol quote pull fig table code note marker
    text: str = ""
    level: int = 2
    items: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    lang: str = ""
    name: str = ""


@dataclass
class Entry:
    fields: list[str]
    paras: list[str]

    @property
    def author(self) -> str:
        return self.fields[0]

    def get(self, i: int, default: str = "") -> str:
        return self.fields[i] if i < len(self.fields) else default


@dataclass
class Article:
    slug: str
    meta: dict[str, str]
    blocks: list[Block]
    comments: list[Entry]

    def m(self, key: str, default: str = "") -> str:
        return self.meta.get(key, default)

    @property
    def title(self) -> str:
        return self.meta["title"]

    @property
    def tags(self) -> list[str]:
        return [t.strip() for t in self.m("tags").split(",") if t.strip()]


_CJK = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uff00-\uffef]")


def _join_lines(lines: list[str]) -> str:
    out = ""
    for ln in lines:
        ln = ln.strip()
        if not out:
            out = ln
        elif _CJK.match(out[-1:]) and _CJK.match(ln[:1]):
            out += ln
        else:
            out += " " + ln
    return out


def parse(path: str, slug: str) -> Article:
    """Parses one source file; raises ValueError naming the file and line for a bad header."""
    with open(path, encoding="utf-8") as fh:
        raw = fh.read()
    head, sep, rest = raw.partition("\n---\n")
    if not sep:
        raise ValueError(f"{path}: expected a header, a line '---' and the body")
    meta: dict[str, str] = {}
    for n, line in enumerate(head.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        key, colon, value = line.partition(":")
        if not colon:
            raise ValueError(f"{path}:{n}: expected 'key: value', got {line!r}")
        meta[key.strip()] = value.strip()
    for required in ("title", "skin", "kind", "url"):
        if required not in meta:
            raise ValueError(f"{path}: header lacks '{required}'")
    body, _, comments_raw = rest.partition("===comments===\n")
    return Article(slug, meta, _parse_blocks(body, path), _parse_comments(comments_raw))


def _parse_blocks(body: str, path: str) -> list[Block]:
    blocks: list[Block] = []
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.startswith("```"):
            lang = line[3:].strip()
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            if j == len(lines):
                raise ValueError(f"{path}: code block opened at body line {i + 1} is not closed")
            blocks.append(Block("code", "\n".join(lines[i + 1:j]), lang=lang))
            i = j + 1
            continue
        group = []
        while i < len(lines) and lines[i].strip():
            group.append(lines[i])
            i += 1
        blocks.append(_group_block(group, path))
    return blocks


def _group_block(group: list[str], path: str) -> Block:
    first = group[0].strip()
    if first in MARKERS:
        return Block("marker", name=first[1:-1])
    if first.startswith("#"):
        hashes = len(first) - len(first.lstrip("#"))
        return Block("heading", _join_lines([first[hashes:]] + group[1:]), level=hashes)
    if first.startswith("- "):
        return Block("ul", items=_items(group, r"- "))
    if re.match(r"\d+\. ", first):
        return Block("ol", items=_items(group, r"\d+\. "))
    if first.startswith(">>"):
        return Block("pull", _join_lines([g.lstrip(">").strip() for g in group]))
    if first.startswith(">"):
        return Block("quote", _join_lines([g.lstrip(">").strip() for g in group]))
    if first.startswith("|"):
        rows = [[c.strip() for c in g.strip().strip("|").split("|")] for g in group]
        return Block("table", rows=rows)
    m = re.match(r"\[fig ([^\]]+)\]\s*(.*)", first)
    if m:
        return Block("fig", _join_lines([m.group(2)] + group[1:]), name=m.group(1))
    m = re.match(r"\[note ([^\]]+)\]\s*(.*)", first)
    if m:
        return Block("note", _join_lines([m.group(2)] + group[1:]), name=m.group(1))
    if first.startswith("[") and first.endswith("]") and " " not in first:
        raise ValueError(f"{path}: unknown marker {first}")
    return Block("para", _join_lines(group))


def _items(group: list[str], prefix: str) -> list[str]:
    items: list[str] = []
    for g in group:
        m = re.match(prefix, g.strip())
        if m:
            items.append(g.strip()[m.end():])
        else:
            items[-1] = _join_lines([items[-1], g])
    return items


def _parse_comments(raw: str) -> list[Entry]:
    entries: list[Entry] = []
    for chunk in re.split(r"\n(?=@ )", "\n" + raw.strip()):
        chunk = chunk.strip()
        if not chunk:
            continue
        head, _, text = chunk.partition("\n")
        fields = [f.strip() for f in head[2:].split("|")]
        paras = [_join_lines(p.split("\n")) for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
        entries.append(Entry(fields, paras))
    return entries


# Inline markup ------------------------------------------------------------------------

_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_CODE = re.compile(r"`([^`]+)`")
_STRONG = re.compile(r"\*\*(.+?)\*\*")
_EM = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")


def plain(text: str) -> str:
    """The text a reader sees: inline markup removed."""
    text = _CODE.sub(lambda m: m.group(1), text)
    text = _LINK.sub(lambda m: m.group(1), text)
    text = _STRONG.sub(lambda m: m.group(1), text)
    return _EM.sub(lambda m: m.group(1), text)


def inline_html(text: str, *, em="em", strong="strong", code="code", link_attrs="", entities=False,
                misnest=False) -> str:
    """Inline markup as HTML. entities: every non-ASCII character and quote as a character
    reference. misnest: **strong** around an *em* run closes in the wrong order (b i /b /i)."""
    codes: list[str] = []

    def keep_code(m: re.Match) -> str:
        codes.append(m.group(1))
        return f"\x00{len(codes) - 1}\x00"

    text = _CODE.sub(keep_code, text)
    out = esc(text, entities)
    out = _LINK.sub(lambda m: f'<a href="{m.group(2)}"{link_attrs}>{m.group(1)}</a>', out)
    if misnest:
        out = _STRONG.sub(lambda m: f"<b><i>{m.group(1)}</b></i>", out)
    else:
        out = _STRONG.sub(lambda m: f"<{strong}>{m.group(1)}</{strong.split()[0]}>", out)
    out = _EM.sub(lambda m: f"<{em}>{m.group(1)}</{em.split()[0]}>", out)
    return re.sub("\x00(\\d+)\x00", lambda m: f"<{code}>{esc(codes[int(m.group(1))], entities)}</{code.split()[0]}>", out)


def attr(text: str) -> str:
    """Text for a double- or single-quoted attribute value."""
    return html.escape(text, quote=True)


def esc(text: str, entities: bool = False) -> str:
    out = html.escape(text, quote=False)
    if entities:
        out = "".join(_entity(c) for c in out)
    return out


_NAMED = {"\u2019": "&rsquo;", "\u2018": "&lsquo;", "\u201c": "&ldquo;", "\u201d": "&rdquo;",
          "\u2014": "&mdash;", "\u2013": "&ndash;", "\u00a0": "&nbsp;", "\u00e9": "&eacute;",
          "\u20ac": "&euro;", "\u00a3": "&pound;", "\u2026": "&hellip;", "'": "&#39;", '"': "&quot;"}


def _entity(c: str) -> str:
    if c in _NAMED:
        return _NAMED[c]
    if ord(c) > 127:
        return f"&#{ord(c)};" if ord(c) % 2 else f"&#x{ord(c):X};"
    return c


# Gold ---------------------------------------------------------------------------------

def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", plain(text)).strip()


def block_gold(b: Block) -> str | None:
    """The gold text of one body block, or None for a block that is not article text."""
    if b.kind in ("para", "heading", "quote"):
        return _norm(b.text)
    if b.kind in ("ul", "ol"):
        return "\n".join(_norm(i) for i in b.items)
    if b.kind == "fig":
        return _norm(b.text) or None
    if b.kind == "table":
        return "\n".join(" | ".join(_norm(c) for c in row) for row in b.rows)
    if b.kind == "code":
        return b.text
    if b.kind == "note":
        return _norm(b.name) + "\n" + _norm(b.text)
    return None  # pull quotes and boilerplate markers


def gold_text(article: Article) -> str:
    parts = [g for g in (block_gold(b) for b in article.blocks) if g]
    return "\n\n".join(parts) + "\n"
