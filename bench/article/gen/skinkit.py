"""Small helpers every skin uses: the charset declaration a page carries, dates, the
registry of skins."""
from __future__ import annotations

import datetime as dt
from typing import Callable

from articledoc import Article

SKINS: dict[str, Callable] = {}


def skin(name: str):
    """Registers a skin: a function (Article, random.Random) -> HTML text."""
    def reg(fn):
        SKINS[name] = fn
        return fn
    return reg


def decl(a: Article, upper: bool = False) -> str:
    """The page's own charset declaration: header `declare` is meta (default), http-equiv or
    none; header `label` overrides the charset name written (default: `charset`)."""
    how = a.m("declare", "meta")
    label = a.m("label", a.m("charset", "utf-8"))
    if how == "none":
        return ""
    if how == "http-equiv":
        if upper:
            return f'<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset={label}">'
        return f'<meta http-equiv="Content-Type" content="text/html; charset={label}">'
    if how == "meta":
        return f'<meta charset="{label}">'
    raise ValueError(f"{a.slug}: header 'declare' must be meta, http-equiv or none, got {how!r}")


def date(a: Article) -> dt.date:
    return dt.date.fromisoformat(a.m("date", "2024-03-05"))


def long_date(a: Article) -> str:
    d = date(a)
    return f"{d.day} {d.strftime('%B')} {d.year}"


def us_date(a: Article) -> str:
    d = date(a)
    return f"{d.strftime('%B')} {d.day}, {d.year}"


def host(a: Article) -> str:
    return a.m("url").split("/")[2]


def base(a: Article) -> str:
    return "https://" + host(a)
