"""Rendering an article's body blocks as HTML. A skin subclasses Body and overrides the
pieces its site renders differently; the text of every gold block reaches the HTML whole
(only its markup differs), and markers become the skin's in-body boilerplate."""
from __future__ import annotations

import re

from articledoc import Article, Block, esc, inline_html

_KEYWORDS = {
    "python": "def class return import from as if elif else for while in not and or is None True False with try except raise yield async await lambda pass",
    "js": "const let var function return if else for of in new await async class extends import export from default null undefined true false typeof this",
    "sh": "sudo cd export echo if then fi for do done",
    "swift": "let var func struct class enum return if else guard import throws try await async",
    "toml": "true false",
    "yaml": "true false null",
    "go": "func package import return if else for range var type struct nil",
}
_TOKEN = re.compile(r"(#[^\n]*|//[^\n]*|\"[^\"\n]*\"|'[^'\n]*'|\b\d+(?:\.\d+)?\b|\b[A-Za-z_][A-Za-z_0-9]*\b)")


def highlight(code: str, lang: str, scheme: str) -> str:
    """Code as HTML with syntax spans of one highlighter's shape (pygments, prism, hljs,
    or none); the text content is exactly `code`."""
    if scheme == "none" or not lang:
        return esc(code)
    kw = set(_KEYWORDS.get(lang, "").split())
    names = {
        "pygments": {"comment": "c1", "string": "s2", "number": "mi", "keyword": "k", "name": "n"},
        "prism": {"comment": "token comment", "string": "token string", "number": "token number",
                  "keyword": "token keyword", "name": None},
        "hljs": {"comment": "hljs-comment", "string": "hljs-string", "number": "hljs-number",
                 "keyword": "hljs-keyword", "name": None},
    }[scheme]
    out, pos = [], 0
    for m in _TOKEN.finditer(code):
        out.append(esc(code[pos:m.start()]))
        tok = m.group(0)
        if tok.startswith("#") and lang in ("python", "sh", "toml", "yaml"):
            kind = "comment"
        elif tok.startswith("//") and lang in ("js", "swift", "go"):
            kind = "comment"
        elif tok[0] in "\"'":
            kind = "string"
        elif tok[0].isdigit():
            kind = "number"
        elif tok in kw:
            kind = "keyword"
        elif tok[0].isalpha() or tok[0] == "_":
            kind = "name"
        else:
            out.append(esc(tok))
            pos = m.end()
            continue
        cls = names[kind]
        out.append(f'<span class="{cls}">{esc(tok)}</span>' if cls else esc(tok))
        pos = m.end()
    out.append(esc(code[pos:]))
    return "".join(out)


class Body:
    """Default: plain semantic HTML5. Override attributes or methods per skin."""
    p_open = "<p>"
    p_close = "</p>"
    em = "em"
    strong = "strong"
    code_tag = "code"
    link_attrs = ""
    entities = False
    misnest = False
    scheme = "none"
    sep = "\n"

    def __init__(self, article: Article, hooks: dict | None = None):
        self.article = article
        self.hooks = hooks or {}
        self.n_para = 0

    def inl(self, text: str) -> str:
        return inline_html(text, em=self.em, strong=self.strong, code=self.code_tag,
                           link_attrs=self.link_attrs, entities=self.entities, misnest=self.misnest)

    def para(self, text: str) -> str:
        return f"{self.p_open}{self.inl(text)}{self.p_close}"

    def heading(self, level: int, text: str) -> str:
        return f"<h{level}>{self.inl(text)}</h{level}>"

    def ul(self, items: list[str]) -> str:
        return "<ul>" + "".join(f"<li>{self.inl(i)}</li>" for i in items) + "</ul>"

    def ol(self, items: list[str]) -> str:
        return "<ol>" + "".join(f"<li>{self.inl(i)}</li>" for i in items) + "</ol>"

    def quote(self, text: str) -> str:
        return f"<blockquote><p>{self.inl(text)}</p></blockquote>"

    def pull(self, text: str) -> str:
        return f'<aside class="pullquote"><p>{self.inl(text)}</p></aside>'

    def fig(self, name: str, text: str) -> str:
        cap = f"<figcaption>{self.inl(text)}</figcaption>" if text else ""
        return f'<figure><img src="{self.img(name)}" alt="" width="1200" height="800">{cap}</figure>'

    def img(self, name: str) -> str:
        return f"/media/{name}"

    def table(self, rows: list[list[str]]) -> str:
        head = "".join(f"<th>{self.inl(c)}</th>" for c in rows[0])
        body = "".join("<tr>" + "".join(f"<td>{self.inl(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def code(self, text: str, lang: str) -> str:
        cls = f' class="language-{lang}"' if lang else ""
        return f"<pre><code{cls}>{highlight(text, lang, self.scheme)}</code></pre>"

    def note(self, title: str, text: str) -> str:
        return f'<div class="note"><p class="note-title">{self.inl(title)}</p><p>{self.inl(text)}</p></div>'

    def marker(self, name: str) -> str:
        hook = self.hooks.get(name)
        return hook() if hook else ""

    def block(self, b: Block) -> str:
        k = b.kind
        if k == "para":
            self.n_para += 1
            return self.para(b.text)
        if k == "heading":
            return self.heading(b.level, b.text)
        if k == "ul":
            return self.ul(b.items)
        if k == "ol":
            return self.ol(b.items)
        if k == "quote":
            return self.quote(b.text)
        if k == "pull":
            return self.pull(b.text)
        if k == "fig":
            return self.fig(b.name, b.text)
        if k == "table":
            return self.table(b.rows)
        if k == "code":
            return self.code(b.text, b.lang)
        if k == "note":
            return self.note(b.name, b.text)
        if k == "marker":
            return self.marker(b.name)
        raise ValueError(f"{self.article.slug}: unknown block kind {k}")

    def render(self) -> str:
        return self.sep.join(x for x in (self.block(b) for b in self.article.blocks) if x)
