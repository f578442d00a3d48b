"""Page furniture shared by skins: stylesheets and scripts of realistic bulk, JSON-LD, cookie
banners, share bars, teaser lists, newsletter boxes. Skins wrap these in their own markup."""
from __future__ import annotations

import json
import random

from articledoc import Article, esc, plain
from pools import COOKIE_TEXTS, NEWSLETTER_TEXTS, pick

_PROPS = ["margin:0 auto", "padding:0 16px", "display:flex", "display:grid", "gap:12px",
          "font-size:1.125rem", "line-height:1.6", "color:#1a1a1a", "color:#5f6368",
          "background:#fff", "border-bottom:1px solid #e0e0e0", "max-width:680px",
          "font-family:Georgia,serif", "font-weight:700", "text-transform:uppercase",
          "letter-spacing:.04em", "position:sticky", "top:0", "z-index:10", "overflow:hidden",
          "border-radius:4px", "align-items:center", "justify-content:space-between",
          "grid-template-columns:repeat(auto-fill,minmax(240px,1fr))", "transition:opacity .2s"]


def stylesheet(rng: random.Random, rules: int, prefix: str = "") -> str:
    """A minified-looking stylesheet of `rules` rules with site-like class names."""
    out = []
    for i in range(rules):
        cls = prefix + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(6))
        props = ";".join(rng.sample(_PROPS, rng.randint(2, 6)))
        media = rng.random() < 0.15
        rule = f".{cls}{rng.choice(['', ' a', ':hover', '>div', ' p'])}{{{props}}}"
        out.append(f"@media (min-width:{rng.choice([600, 768, 1024])}px){{{rule}}}" if media else rule)
    return "".join(out)


def analytics(rng: random.Random, site: str) -> str:
    uid = "".join(rng.choice("0123456789ABCDEF") for _ in range(10))
    return ("<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}"
            f"gtag('js',new Date());gtag('config','G-{uid}',{{'anonymize_ip':true,'site':'{site}'}});</script>\n"
            f'<script async src="https://www.googletagmanager.com/gtag/js?id=G-{uid}"></script>')


def bundle(rng: random.Random, size: int) -> str:
    """A minified-looking JavaScript bundle of about `size` characters."""
    words = ["render", "state", "props", "effect", "dispatch", "chunk", "module", "exports",
             "hydrate", "consent", "slot", "viewport", "observer", "lazy", "track", "queue"]
    out, n = [], 0
    while n < size:
        a, b, c = rng.sample(words, 3)
        s = (f"function {a[0]}{rng.randint(0, 999)}(e,t){{var n=e.{b}||{{}};return t&&t.{c}?"
             f"n[t.{c}]:Object.assign({{}},n,{{{a}:!0}})}}")
        out.append(s)
        n += len(s)
    return "<script>" + ";".join(out) + "</script>"


def json_ld(a: Article, publisher: str, with_body: bool = False) -> str:
    data = {"@context": "https://schema.org", "@type": "NewsArticle" if a.m("kind") == "news" else "Article",
            "headline": a.title, "datePublished": a.m("date", "2024-01-01") + "T08:00:00Z",
            "author": {"@type": "Person", "name": a.m("author", publisher)},
            "publisher": {"@type": "Organization", "name": publisher},
            "mainEntityOfPage": a.m("url")}
    if a.m("deck"):
        data["description"] = a.m("deck")
    if with_body:
        from articledoc import gold_text
        data["articleBody"] = gold_text(a).strip()
    return ('<script type="application/ld+json">' + json.dumps(data, ensure_ascii=True)
            .replace("</", "<\\/") + "</script>")


def cookie_banner(rng: random.Random, style: int) -> str:
    text = COOKIE_TEXTS[style % len(COOKIE_TEXTS)]
    return (f'<div id="cookie-consent" class="consent-banner" role="dialog" aria-label="Cookie consent">'
            f'<p>{esc(text)} <a href="/cookies">Cookie policy</a></p>'
            '<div class="consent-actions"><button class="accept">Accept all</button>'
            '<button class="reject">Reject non-essential</button><button class="manage">Manage options</button></div></div>')


def share_bar(url: str, cls: str = "share-bar") -> str:
    return (f'<div class="{cls}"><span>Share this article</span>'
            f'<a href="https://www.facebook.com/sharer/sharer.php?u={url}">Facebook</a>'
            f'<a href="https://twitter.com/intent/tweet?url={url}">X</a>'
            f'<a href="https://www.linkedin.com/shareArticle?url={url}">LinkedIn</a>'
            f'<a href="mailto:?subject=Worth%20a%20read&amp;body={url}">Email</a>'
            '<button class="copy-link">Copy link</button></div>')


def newsletter(rng: random.Random, i: int, cls: str = "newsletter") -> str:
    head, text = NEWSLETTER_TEXTS[i % len(NEWSLETTER_TEXTS)]
    return (f'<div class="{cls}"><h3>{esc(head)}</h3><p>{esc(text)}</p>'
            '<form action="/subscribe" method="post"><label for="nl-email">Email address</label>'
            '<input id="nl-email" type="email" name="email" placeholder="you@example.com">'
            '<button type="submit">Sign up</button></form>'
            '<p class="small">By signing up you agree to our privacy notice. You can unsubscribe at any time.</p></div>')


def teaser_list(items: list[tuple[str, str]], base: str, head: str, cls: str, tag: str = "h3",
                with_text: bool = True) -> str:
    lis = []
    for i, (h, t) in enumerate(items):
        slug = "-".join(w.lower() for w in plain(h).split()[:6] if w.isalnum())
        body = f"<p>{esc(t)}</p>" if with_text else ""
        lis.append(f'<li><a href="{base}/{slug}-{i + 1}"><span class="teaser-title">{esc(h)}</span></a>{body}</li>')
    return f'<section class="{cls}"><{tag}>{esc(head)}</{tag}><ul>{"".join(lis)}</ul></section>'


def nav(links: list[str], base: str = "", cls: str = "nav", tag: str = "nav") -> str:
    lis = "".join(f'<li><a href="{base}/{l.lower().replace(" ", "-").replace("&", "and")}">{esc(l)}</a></li>' for l in links)
    return f'<{tag} class="{cls}"><ul>{lis}</ul></{tag}>'


def pick_teasers(pool: list, k: int, rng: random.Random) -> list:
    return pick(pool, k, rng)
