"""Documentation skins: Sphinx with the Read the Docs theme, MkDocs Material, Docusaurus, an
MDN-like reference page, a GitHub repository page with its README."""
from __future__ import annotations

import html
import re

from articledoc import Article, attr, esc, plain
from body import Body, highlight
from chrome import analytics, bundle, cookie_banner, nav, stylesheet
from skinkit import decl, long_date, skin, us_date


def _anchor(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", plain(text).lower()).strip("-")


def _headings(a: Article) -> list[tuple[int, str]]:
    return [(b.level, b.text) for b in a.blocks if b.kind == "heading"]


# --- Sphinx / Read the Docs -------------------------------------------------------------

class SphinxBody(Body):
    scheme = "pygments"

    def __init__(self, article, hooks=None):
        super().__init__(article, hooks)
        self.open_sections: list[int] = []

    def heading(self, level, text):
        out = ""
        while self.open_sections and self.open_sections[-1] >= level:
            self.open_sections.pop()
            out += "</section>\n"
        self.open_sections.append(level)
        a = _anchor(text)
        return out + f'<section id="{a}">\n<h{level}>{self.inl(text)}<a class="headerlink" href="#{a}" title="Link to this heading">¶</a></h{level}>'

    def code(self, text, lang):
        return (f'<div class="highlight-{lang or "text"} notranslate"><div class="highlight"><pre><span></span>'
                f'{highlight(text, lang, "pygments")}\n</pre></div>\n</div>')

    def note(self, title, text):
        return f'<div class="admonition {title.lower()}">\n<p class="admonition-title">{self.inl(title)}</p>\n<p>{self.inl(text)}</p>\n</div>'

    def table(self, rows):
        head = "".join(f'<th class="head"><p>{self.inl(c)}</p></th>' for c in rows[0])
        body = "".join(f'<tr class="row-{"odd" if i % 2 else "even"}">' + "".join(f"<td><p>{self.inl(c)}</p></td>" for c in r) + "</tr>" for i, r in enumerate(rows[1:]))
        return f'<table class="docutils align-default"><thead><tr class="row-odd">{head}</tr></thead><tbody>{body}</tbody></table>'

    def render(self):
        out = super().render()
        return out + "</section>" * len(self.open_sections)


@skin("sphinx")
def sphinx(a: Article, rng) -> str:
    proj = a.m("project", "tidewater")
    body = SphinxBody(a).render()
    toc = a.m("toc", "Installation,Quickstart,Configuration,Scheduling jobs,Storage backends,Plugins,Deployment,Monitoring,Testing your jobs,Migrating from 1.x,FAQ,Changelog,Contributing").split(",")
    local = '<ul class="current">' + "".join(f'<li class="toctree-l2"><a class="reference internal" href="#{_anchor(t)}">{esc(plain(t))}</a></li>' for lv, t in _headings(a) if lv == 2) + "</ul>"
    return f"""<!DOCTYPE html>
<html class="writer-html5" lang="en" data-content_root="../"><head>{decl(a)}<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{esc(a.title)} &mdash; {esc(proj)} {a.m('version', '2.4.1')} documentation</title>
<link rel="stylesheet" type="text/css" href="../_static/pygments.css?v=80d5e7a1"><link rel="stylesheet" type="text/css" href="../_static/css/theme.css?v=19f00094">
<script src="../_static/jquery.js?v=5d32c60e"></script><script src="../_static/documentation_options.js?v=2c9e1f8d"></script><script src="../_static/doctools.js?v=888ff710"></script><script src="../_static/js/theme.js"></script>
<link rel="index" title="Index" href="../genindex.html"><link rel="search" title="Search" href="../search.html"></head>
<body class="wy-body-for-nav"><div class="wy-grid-for-nav">
<nav data-toggle="wy-nav-shift" class="wy-nav-side"><div class="wy-side-scroll"><div class="wy-side-nav-search"><a href="../index.html" class="icon icon-home">{esc(proj)}</a><div class="version">{a.m('version', '2.4.1')}</div>
<div role="search"><form id="rtd-search-form" class="wy-form" action="../search.html" method="get"><input type="text" name="q" placeholder="Search docs" aria-label="Search docs"></form></div></div>
<div class="wy-menu wy-menu-vertical" data-spy="affix" role="navigation" aria-label="Navigation menu"><p class="caption" role="heading"><span class="caption-text">User guide</span></p>
<ul class="current">{''.join(f'<li class="toctree-l1{" current" if t.strip() == a.m("current") else ""}"><a class="reference internal" href="{_anchor(t)}.html">{esc(t.strip())}</a>{local if t.strip() == a.m("current") else ""}</li>' for t in toc)}</ul>
<p class="caption" role="heading"><span class="caption-text">API reference</span></p><ul>{''.join(f'<li class="toctree-l1"><a class="reference internal" href="../api/{m}.html"><code class="xref py py-mod docutils literal notranslate"><span class="pre">{proj}.{m}</span></code></a></li>' for m in ['scheduler', 'jobs', 'retry', 'storage', 'storage.postgres', 'storage.sqlite', 'storage.redis', 'cron', 'events', 'testing', 'cli', 'exceptions'])}</ul>
<p class="caption" role="heading"><span class="caption-text">Project</span></p><ul><li class="toctree-l1"><a class="reference internal" href="../license.html">License</a></li><li class="toctree-l1"><a class="reference external" href="https://github.com/{proj}/{proj}">Source code</a></li></ul></div></div></nav>
<section data-toggle="wy-nav-shift" class="wy-nav-content-wrap"><nav class="wy-nav-top" aria-label="Mobile navigation menu"><i data-toggle="wy-nav-top" class="fa fa-bars"></i><a href="../index.html">{esc(proj)}</a></nav>
<div class="wy-nav-content"><div class="rst-content">
<div role="navigation" aria-label="Page navigation"><ul class="wy-breadcrumbs"><li><a href="../index.html" class="icon icon-home" aria-label="Home"></a></li><li class="breadcrumb-item"><a href="index.html">{esc(a.m('crumb', 'User guide'))}</a></li><li class="breadcrumb-item active">{esc(a.title)}</li><li class="wy-breadcrumbs-aside"><a href="../_sources/guide/{_anchor(a.title)}.rst.txt" rel="nofollow"> View page source</a></li></ul><hr></div>
<div role="main" class="document" itemscope="itemscope" itemtype="http://schema.org/Article"><div itemprop="articleBody">
<section id="{_anchor(a.title)}"><h1>{esc(a.title)}<a class="headerlink" href="#{_anchor(a.title)}" title="Link to this heading">¶</a></h1>
{body}
</section>
</div></div>
<footer><div class="rst-footer-buttons" role="navigation" aria-label="Footer"><a href="prev.html" class="btn btn-neutral float-left" title="{attr(a.m('prev', 'Quickstart'))}" accesskey="p" rel="prev"><span class="fa fa-arrow-circle-left" aria-hidden="true"></span> Previous</a><a href="next.html" class="btn btn-neutral float-right" title="{attr(a.m('next', 'Storage backends'))}" accesskey="n" rel="next">Next <span class="fa fa-arrow-circle-right" aria-hidden="true"></span></a></div>
<hr><div role="contentinfo"><p>&#169; Copyright 2019-2024, the {esc(proj)} developers.</p></div>Built with <a href="https://www.sphinx-doc.org/">Sphinx</a> using a <a href="https://github.com/readthedocs/sphinx_rtd_theme">theme</a> provided by <a href="https://readthedocs.org">Read the Docs</a>.</footer>
</div></div></section></div>
<div class="rst-versions" data-toggle="rst-versions" role="note" aria-label="Versions"><span class="rst-current-version" data-toggle="rst-current-version"><span class="fa fa-book"> Read the Docs</span> v: {a.m('version', '2.4.1')}</span>
<div class="rst-other-versions"><dl><dt>Versions</dt><dd><a href="/en/latest/">latest</a></dd><dd><a href="/en/stable/">stable</a></dd><dd><a href="/en/2.3.x/">2.3.x</a></dd></dl><dl><dt>Downloads</dt><dd><a href="/_/downloads/en/latest/pdf/">PDF</a></dd><dd><a href="/_/downloads/en/latest/epub/">Epub</a></dd></dl></div></div>
<script>jQuery(function () {{ SphinxRtdTheme.Navigation.enable(true); }});</script></body></html>"""


# --- MkDocs Material --------------------------------------------------------------------

class MkDocsBody(Body):
    def __init__(self, article, hooks=None):
        super().__init__(article, hooks)
        self.n_code = 0

    def heading(self, level, text):
        a = _anchor(text)
        return f'<h{level} id="{a}">{self.inl(text)}<a class="headerlink" href="#{a}" title="Permanent link">&para;</a></h{level}>'

    def code(self, text, lang):
        n = self.n_code
        self.n_code += 1
        lines = highlight(text, lang, "pygments").split("\n")
        numbered = "\n".join(f'<span id="__span-{n}-{i + 1}"><a id="__codelineno-{n}-{i + 1}" name="__codelineno-{n}-{i + 1}" href="#__codelineno-{n}-{i + 1}"></a>{ln}' + "</span>" for i, ln in enumerate(lines))
        return f'<div class="language-{lang or "text"} highlight"><pre><span></span><code>{numbered}\n</code></pre></div>'

    def note(self, title, text):
        return f'<div class="admonition {title.lower().split()[0]}">\n<p class="admonition-title">{self.inl(title)}</p>\n<p>{self.inl(text)}</p>\n</div>'


@skin("mkdocs")
def mkdocs(a: Article, rng) -> str:
    proj = a.m("project", "Harbor CLI")
    body = MkDocsBody(a).render()
    toc = "".join(f'<li class="md-nav__item"><a href="#{_anchor(t)}" class="md-nav__link"><span class="md-ellipsis">{esc(plain(t))}</span></a></li>' for lv, t in _headings(a) if lv == 2)
    side = a.m("toc", "Home,Getting started,Installation,Configuration,Environment variables,Secrets,Multiple hosts,Commands,harbor init,harbor setup,harbor deploy,harbor rollback,harbor logs,harbor exec,Hooks,Deploying,Health checks,Zero-downtime deploys,Troubleshooting,FAQ,Changelog,Contributing,License").split(",")
    return f"""<!doctype html>
<html lang="en" class="no-js"><head>{decl(a)}<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="generator" content="mkdocs-1.5.3, mkdocs-material-9.5.13">
<title>{esc(a.title)} - {esc(proj)}</title><link rel="stylesheet" href="../assets/stylesheets/main.7e359304.min.css"><link rel="stylesheet" href="../assets/stylesheets/palette.06af60db.min.css">
<style>{stylesheet(rng, 200, 'md-')}</style><script>__md_scope=new URL("..",location),__md_hash=e=>[...e].reduce((e,_)=>(e<<5)-e+_.charCodeAt(0),0),__md_get=(e,_=localStorage,t=__md_scope)=>JSON.parse(_.getItem(t.pathname+"."+e))</script></head>
<body dir="ltr" data-md-color-scheme="default" data-md-color-primary="indigo" data-md-color-accent="indigo">
<input class="md-toggle" data-md-toggle="drawer" type="checkbox" id="__drawer" autocomplete="off"><input class="md-toggle" data-md-toggle="search" type="checkbox" id="__search" autocomplete="off">
<label class="md-overlay" for="__drawer"></label><div data-md-component="skip"><a href="#{_anchor(a.title)}" class="md-skip">Skip to content</a></div>
<div data-md-component="announce"><aside class="md-banner"><div class="md-banner__inner md-grid md-typeset">Version 3 is out! Read the <a href="../migrating/">migration guide</a> before you upgrade.</div></aside></div>
<header class="md-header md-header--shadow" data-md-component="header"><nav class="md-header__inner md-grid" aria-label="Header"><a href=".." title="{attr(proj)}" class="md-header__button md-logo" aria-label="{attr(proj)}" data-md-component="logo"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M12 8a3 3 0 0 0 3-3 3 3 0 0 0-3-3"/></svg></a>
<div class="md-header__title" data-md-component="header-title"><div class="md-header__ellipsis"><div class="md-header__topic"><span class="md-ellipsis">{esc(proj)}</span></div><div class="md-header__topic" data-md-component="header-topic"><span class="md-ellipsis">{esc(a.title)}</span></div></div></div>
<label class="md-header__button md-icon" for="__search"></label><div class="md-search" data-md-component="search" role="dialog"><div class="md-search__inner" role="search"><form class="md-search__form" name="search"><input type="text" class="md-search__input" name="query" aria-label="Search" placeholder="Search" autocapitalize="off" autocorrect="off" autocomplete="off" spellcheck="false" data-md-component="search-query" required></form><div class="md-search__output"><div class="md-search__scrollwrap" data-md-scrollfix><div class="md-search-result" data-md-component="search-result"><div class="md-search-result__meta">Initializing search</div></div></div></div></div></div>
<div class="md-header__source"><a href="https://github.com/harbor-cli/harbor" title="Go to repository" class="md-source" data-md-component="source"><div class="md-source__repository">harbor-cli/harbor</div></a></div></nav></header>
<div class="md-container" data-md-component="container"><nav class="md-tabs" aria-label="Tabs" data-md-component="tabs"><div class="md-grid"><ul class="md-tabs__list"><li class="md-tabs__item"><a href=".." class="md-tabs__link">Guide</a></li><li class="md-tabs__item"><a href="../reference/" class="md-tabs__link">Reference</a></li><li class="md-tabs__item"><a href="../blog/" class="md-tabs__link">Blog</a></li></ul></div></nav>
<main class="md-main" data-md-component="main"><div class="md-main__inner md-grid">
<div class="md-sidebar md-sidebar--primary" data-md-component="sidebar" data-md-type="navigation"><div class="md-sidebar__scrollwrap"><div class="md-sidebar__inner"><nav class="md-nav md-nav--primary md-nav--lifted" aria-label="Navigation" data-md-level="0"><label class="md-nav__title" for="__drawer">{esc(proj)}</label><ul class="md-nav__list" data-md-scrollfix>{''.join(f'<li class="md-nav__item{" md-nav__item--active" if s.strip() == a.m("current") else ""}"><a href="../{_anchor(s)}/" class="md-nav__link"><span class="md-ellipsis">{esc(s.strip())}</span></a></li>' for s in side)}</ul></nav></div></div></div>
<div class="md-sidebar md-sidebar--secondary" data-md-component="sidebar" data-md-type="toc"><div class="md-sidebar__scrollwrap"><div class="md-sidebar__inner"><nav class="md-nav md-nav--secondary" aria-label="Table of contents"><label class="md-nav__title" for="__toc"><span class="md-nav__icon md-icon"></span>Table of contents</label><ul class="md-nav__list" data-md-component="toc" data-md-scrollfix>{toc}</ul></nav></div></div></div>
<div class="md-content" data-md-component="content"><article class="md-content__inner md-typeset">
<a href="https://github.com/harbor-cli/harbor/edit/main/docs/{_anchor(a.title)}.md" title="Edit this page" class="md-content__button md-icon"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M10 20H6V4h7v5h5v3.1l2-2V8l-6-6H6c-1.1 0-2 .9-2 2v16c0 1.1.9 2 2 2h4v-2"/></svg></a>
<h1 id="{_anchor(a.title)}">{esc(a.title)}<a class="headerlink" href="#{_anchor(a.title)}" title="Permanent link">&para;</a></h1>
{body}
<aside class="md-source-file"><span class="md-source-file__fact"><span class="md-icon" title="Last update"></span><span class="git-revision-date-localized-plugin git-revision-date-localized-plugin-date">{us_date(a)}</span></span></aside>
<h2 id="__comments">Comments</h2><script src="https://giscus.app/client.js" data-repo="harbor-cli/harbor" data-mapping="pathname" async></script>
</article></div>
<script>var target=document.getElementById(location.hash.slice(1));target&&target.name&&(target.checked=target.name.startsWith("__tabbed_"))</script></div>
<button type="button" class="md-top md-icon" data-md-component="top" hidden>Back to top</button></main>
<footer class="md-footer"><nav class="md-footer__inner md-grid" aria-label="Footer"><a href="../prev/" class="md-footer__link md-footer__link--prev" aria-label="Previous: {attr(a.m('prev', 'Installation'))}"><div class="md-footer__title"><span class="md-footer__direction">Previous</span><div class="md-ellipsis">{esc(a.m('prev', 'Installation'))}</div></div></a><a href="../next/" class="md-footer__link md-footer__link--next" aria-label="Next: {attr(a.m('next', 'Commands'))}"><div class="md-footer__title"><span class="md-footer__direction">Next</span><div class="md-ellipsis">{esc(a.m('next', 'Commands'))}</div></div></a></nav>
<div class="md-footer-meta md-typeset"><div class="md-footer-meta__inner md-grid"><div class="md-copyright"><div class="md-copyright__highlight">Copyright &copy; 2022 - 2024 The Harbor authors</div>Made with <a href="https://squidfunk.github.io/mkdocs-material/" target="_blank" rel="noopener">Material for MkDocs</a></div></div></div></footer></div>
<div class="md-dialog" data-md-component="dialog"><div class="md-dialog__inner md-typeset"></div></div>
<script id="__config" type="application/json">{{"base": "..", "features": ["content.code.copy", "navigation.tabs", "navigation.top"], "search": "../assets/javascripts/workers/search.b8dbb3d2.min.js", "translations": {{"clipboard.copied": "Copied to clipboard", "clipboard.copy": "Copy to clipboard", "search.result.none": "No matching documents"}}}}</script>
<script src="../assets/javascripts/bundle.1e8ae164.min.js"></script>{bundle(rng, 30000)}</body></html>"""


# --- Docusaurus -------------------------------------------------------------------------

def _dh(rng) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(4))


class DocusaurusBody(Body):
    def __init__(self, article, hooks, rng):
        super().__init__(article, hooks)
        self.rng = rng

    def heading(self, level, text):
        a = _anchor(text)
        return f'<h{level} class="anchor anchorWithStickyNavbar_{_dh(self.rng)}" id="{a}">{self.inl(text)}<a href="#{a}" class="hash-link" aria-label="Direct link to {attr(plain(text))}" title="Direct link to {attr(plain(text))}">\u200b</a></h{level}>'

    def code(self, text, lang):
        lines = highlight(text, lang, "prism").split("\n")
        spans = "".join(f'<span class="token-line" style="color:#393A34"><span class="token plain">{ln}</span>\n</span>' for ln in lines)
        h = _dh(self.rng)
        return (f'<div class="language-{lang} codeBlockContainer_{h} theme-code-block" style="--prism-color:#393A34;--prism-background-color:#f6f8fa"><div class="codeBlockContent_{h}">'
                f'<pre tabindex="0" class="prism-code language-{lang} codeBlock_{h} thin-scrollbar" style="color:#393A34;background-color:#f6f8fa"><code class="codeBlockLines_{h}">{spans}</code></pre>'
                f'<div class="buttonGroup_{h}"><button type="button" aria-label="Copy code to clipboard" title="Copy" class="clean-btn"><span class="copyButtonIcons_{h}" aria-hidden="true"><svg viewBox="0 0 24 24" class="copyButtonIcon_{h}"><path fill="currentColor" d="M19,21H8V7H19M19,5H8A2,2 0 0,0 6,7V21A2,2 0 0,0 8,23H19A2,2 0 0,0 21,21V7A2,2 0 0,0 19,5M16,1H4A2,2 0 0,0 2,3V17H4V3H16V1Z"></path></svg></span></button></div></div></div>')

    def note(self, title, text):
        kind = {"tip": "success", "warning": "warning", "danger": "danger"}.get(title.lower(), "info")
        h = _dh(self.rng)
        return (f'<div class="theme-admonition theme-admonition-{title.lower()} admonition_{h} alert alert--{kind}"><div class="admonitionHeading_{h}"><span class="admonitionIcon_{h}"><svg viewBox="0 0 12 16"><path fill-rule="evenodd" d="M6.5 0C3.48 0 1 2.19 1 5c0 .92.55 2.25 1 3"></path></svg></span>{self.inl(title)}</div>'
                f'<div class="admonitionContent_{h}"><p>{self.inl(text)}</p></div></div>')


@skin("docusaurus")
def docusaurus(a: Article, rng) -> str:
    proj = a.m("project", "Relay")
    body = DocusaurusBody(a, {}, rng).render()
    side = a.m("toc", "Introduction,Installation,Quick start,Configuration,Routing,Upstreams,Load balancing,Authentication,API keys,JWT validation,Rate limiting,Caching,Deploying,Kubernetes,Observability,Metrics,Tracing,Plugins,Upgrading,Migrating from v1,FAQ,Glossary").split(",")
    toc = "".join(f'<li><a href="#{_anchor(t)}" class="table-of-contents__link toc-highlight">{esc(plain(t))}</a></li>' for lv, t in _headings(a) if lv == 2)
    h = _dh(rng)
    return f"""<!doctype html>
<html lang="en" dir="ltr" class="docs-wrapper plugin-docs plugin-id-default docs-version-current docs-doc-page" data-has-hydrated="false"><head>{decl(a)}<meta name="generator" content="Docusaurus v3.1.1">
<title data-rh="true">{esc(a.title)} | {esc(proj)}</title><meta data-rh="true" name="viewport" content="width=device-width,initial-scale=1"><meta data-rh="true" name="docusaurus_version" content="current"><meta data-rh="true" name="docsearch:language" content="en">
<link rel="stylesheet" href="/assets/css/styles.9a2f3e1c.css"><style>{stylesheet(rng, 250, '')}</style><script src="/assets/js/runtime~main.7d1f2c3a.js" defer="defer"></script><script src="/assets/js/main.c7e5a1b2.js" defer="defer"></script></head>
<body class="navigation-with-keyboard"><script>!function(){{function t(t){{document.documentElement.setAttribute("data-theme",t)}}var e=function(){{try{{return new URLSearchParams(window.location.search).get("docusaurus-theme")}}catch(t){{}}}}()||function(){{try{{return localStorage.getItem("theme")}}catch(t){{}}}}();t(null!==e?e:"light")}}()</script>
<div id="__docusaurus"><div role="region" aria-label="Skip to main content"><a class="skipToContent_{h}" href="#__docusaurus_skipToContent_fallback">Skip to main content</a></div>
<div class="theme-announcement-bar announcementBar_{h}" role="banner"><div class="content_{h} announcementBarContent_{h}">⭐️ If you like {esc(proj)}, give it a star on <a target="_blank" rel="noopener noreferrer" href="https://github.com/relay-dev/relay">GitHub</a>! ⭐️</div></div>
<nav aria-label="Main" class="navbar navbar--fixed-top"><div class="navbar__inner"><div class="navbar__items"><button aria-label="Toggle navigation bar" aria-expanded="false" class="navbar__toggle clean-btn" type="button"></button><a class="navbar__brand" href="/"><b class="navbar__title text--truncate">{esc(proj)}</b></a><a aria-current="page" class="navbar__item navbar__link navbar__link--active" href="/docs/intro">Docs</a><a class="navbar__item navbar__link" href="/docs/api">API</a><a class="navbar__item navbar__link" href="/blog">Blog</a><a class="navbar__item navbar__link" href="/community">Community</a></div>
<div class="navbar__items navbar__items--right"><div class="navbar__item dropdown dropdown--hoverable dropdown--right"><a href="#" aria-haspopup="true" aria-expanded="false" role="button" class="navbar__link">v2.8</a><ul class="dropdown__menu"><li><a class="dropdown__link" href="/docs/next/intro">Next</a></li><li><a class="dropdown__link" href="/docs/intro">v2.8</a></li><li><a class="dropdown__link" href="/docs/2.7/intro">v2.7</a></li></ul></div><a href="https://github.com/relay-dev/relay" target="_blank" rel="noopener noreferrer" class="navbar__item navbar__link">GitHub</a><div class="navbarSearchContainer_{h}"><button type="button" class="DocSearch DocSearch-Button" aria-label="Search"><span class="DocSearch-Button-Placeholder">Search</span></button></div></div></div><div role="presentation" class="navbar-sidebar__backdrop"></div></nav>
<div id="__docusaurus_skipToContent_fallback" class="main-wrapper mainWrapper_{h}"><div class="docsWrapper_{h}"><button aria-label="Scroll back to top" class="clean-btn theme-back-to-top-button backToTopButton_{h}" type="button"></button><div class="docRoot_{h}">
<aside class="theme-doc-sidebar-container docSidebarContainer_{h}"><div class="sidebarViewport_{h}"><div class="sidebar_{h}"><nav aria-label="Docs sidebar" class="menu thin-scrollbar menu_{h}"><ul class="theme-doc-sidebar-menu menu__list">{''.join(f'<li class="theme-doc-sidebar-item-link theme-doc-sidebar-item-link-level-1 menu__list-item"><a class="menu__link{" menu__link--active" if s.strip() == a.m("current") else ""}" href="/docs/{_anchor(s)}">{esc(s.strip())}</a></li>' for s in side)}</ul></nav></div></div></aside>
<main class="docMainContainer_{h}"><div class="container padding-top--md padding-bottom--lg"><div class="row"><div class="col docItemCol_{h}"><div class="docItemContainer_{h}"><article>
<nav class="theme-doc-breadcrumbs breadcrumbsContainer_{h}" aria-label="Breadcrumbs"><ul class="breadcrumbs" itemscope="" itemtype="https://schema.org/BreadcrumbList"><li class="breadcrumbs__item"><a aria-label="Home page" class="breadcrumbs__link" href="/"><svg viewBox="0 0 24 24" class="breadcrumbHomeIcon_{h}"><path d="M10 19v-5h4v5c0 .55.45 1 1 1h3c.55 0 1-.45 1-1v-7h1.7c.46 0 .68-.57.33-.87L12.67 3.6c-.38-.34-.96-.34-1.34 0l-8.36 7.53c-.34.3-.13.87.33.87H5v7c0 .55.45 1 1 1h3c.55 0 1-.45 1-1z" fill="currentColor"></path></svg></a></li><li itemscope="" itemprop="itemListElement" itemtype="https://schema.org/ListItem" class="breadcrumbs__item"><span class="breadcrumbs__link" itemprop="name">{esc(a.m('crumb', 'Guides'))}</span><meta itemprop="position" content="1"></li><li itemscope="" itemprop="itemListElement" itemtype="https://schema.org/ListItem" class="breadcrumbs__item breadcrumbs__item--active"><span class="breadcrumbs__link" itemprop="name">{esc(a.title)}</span><meta itemprop="position" content="2"></li></ul></nav>
<span class="theme-doc-version-badge badge badge--secondary">Version: 2.8</span>
<div class="tocCollapsible_{h} theme-doc-toc-mobile tocMobile_{h}"><button type="button" class="clean-btn tocCollapsibleButton_{h}">On this page</button></div>
<div class="theme-doc-markdown markdown"><header><h1>{esc(a.title)}</h1></header>
{body}
</div>
<footer class="theme-doc-footer docusaurus-mt-lg"><div class="theme-doc-footer-edit-meta-row row"><div class="col"><a href="https://github.com/relay-dev/relay/edit/main/website/docs/{_anchor(a.title)}.md" target="_blank" rel="noopener noreferrer" class="theme-edit-this-page"><svg fill="currentColor" height="20" width="20" viewBox="0 0 40 40" class="iconEdit_{h}" aria-hidden="true"><g><path d="m34.5 11.7l-3 3.1-6.3-6.3 3.1-3q0.5-0.5 1.2-0.5t1.1 0.5l3.9 3.9q0.5 0.4 0.5 1.1t-0.5 1.2z"></path></g></svg>Edit this page</a></div>
<div class="col lastUpdated_{h}"><span class="theme-last-updated">Last updated on <b><time datetime="{a.m('date')}T10:00:00.000Z">{us_date(a)}</time></b> by <b>{esc(a.m('author', 'maintainers'))}</b></span></div></div></footer></article>
<nav class="pagination-nav docusaurus-mt-lg" aria-label="Docs pages"><a class="pagination-nav__link pagination-nav__link--prev" href="/docs/prev"><div class="pagination-nav__sublabel">Previous</div><div class="pagination-nav__label">{esc(a.m('prev', 'Configuration'))}</div></a><a class="pagination-nav__link pagination-nav__link--next" href="/docs/next"><div class="pagination-nav__sublabel">Next</div><div class="pagination-nav__label">{esc(a.m('next', 'Observability'))}</div></a></nav></div></div>
<div class="col col--3"><div class="tableOfContents_{h} thin-scrollbar theme-doc-toc-desktop"><ul class="table-of-contents table-of-contents__left-border">{toc}</ul></div></div></div></div></main></div></div></div>
<footer class="footer footer--dark"><div class="container container-fluid"><div class="row footer__links"><div class="col footer__col"><div class="footer__title">Docs</div><ul class="footer__items clean-list"><li class="footer__item"><a class="footer__link-item" href="/docs/intro">Getting started</a></li><li class="footer__item"><a class="footer__link-item" href="/docs/api">API reference</a></li></ul></div><div class="col footer__col"><div class="footer__title">Community</div><ul class="footer__items clean-list"><li class="footer__item"><a href="https://discord.gg/relay" class="footer__link-item">Discord</a></li><li class="footer__item"><a href="https://stackoverflow.com/questions/tagged/relay" class="footer__link-item">Stack Overflow</a></li></ul></div><div class="col footer__col"><div class="footer__title">More</div><ul class="footer__items clean-list"><li class="footer__item"><a class="footer__link-item" href="/blog">Blog</a></li><li class="footer__item"><a href="https://github.com/relay-dev/relay" class="footer__link-item">GitHub</a></li></ul></div></div>
<div class="footer__bottom text--center"><div class="footer__copyright">Copyright © 2024 The Relay Authors. Built with Docusaurus.</div></div></div></footer></div>{bundle(rng, 35000)}</body></html>"""


# --- MDN-like reference -----------------------------------------------------------------

class MdnBody(Body):
    def __init__(self, article, hooks=None):
        super().__init__(article, hooks)
        self.in_section = False

    def heading(self, level, text):
        a = _anchor(text)
        close = "</div></section>" if self.in_section else '</div>'
        self.in_section = True
        return f'{close}<section aria-labelledby="{a}"><h{level} id="{a}"><a href="#{a}">{self.inl(text)}</a></h{level}><div class="section-content">'

    def code(self, text, lang):
        return (f'<div class="code-example"><div class="example-header"><span class="language-name">{lang}</span><button type="button" class="icon copy-icon"><span class="visually-hidden">Copy to Clipboard</span></button></div>'
                f'<pre class="brush: {lang} notranslate"><code>{highlight(text, lang, "prism")}</code></pre></div>')

    def note(self, title, text):
        return f'<div class="notecard {title.lower()}"><p><strong>{self.inl(title)}:</strong> {self.inl(text)}</p></div>'

    def table(self, rows):
        return f'<figure class="table-container">{super().table(rows)}</figure>'

    def render(self):
        return '<div class="section-content">' + super().render() + ("</div></section>" if self.in_section else "</div>")


@skin("mdn")
def mdn(a: Article, rng) -> str:
    body = MdnBody(a).render()
    side = a.m("sidebar", "").split(",")
    toc = "".join(f'<li class="document-toc-item"><a class="document-toc-link" href="#{_anchor(t)}">{esc(plain(t))}</a></li>' for lv, t in _headings(a))
    return f"""<!doctype html><html lang="en-US" prefix="og: https://ogp.me/ns#"><head>{decl(a)}<meta name="viewport" content="width=device-width,initial-scale=1">
<title>{esc(a.title)} - {esc(a.m('area', 'JavaScript'))} | DevRef Web Docs</title><link rel="stylesheet" href="/static/css/main.4c8e1a2f.css"><style>{stylesheet(rng, 300, '')}</style>
<meta name="description" content="{attr(a.m('deck'))}"><script type="application/ld+json">{{"@context":"https://schema.org","@type":"TechArticle","name":"{esc(a.title)}","publisher":"DevRef"}}</script></head>
<body><script>if(document.body.addEventListener("load",(t=>{{t.target.classList.contains("interactive")&&t.target.setAttribute("data-readystate","complete")}}),{{capture:!0}}),window&&document.documentElement){{const t={{light:"#ffffff",dark:"#1b1b1b"}};try{{const e=window.localStorage.getItem("theme");e&&(document.documentElement.className=e)}}catch(t){{}}}}</script>
<div id="root"><ul id="nav-access" class="a11y-nav"><li><a id="skip-main" href="#content">Skip to main content</a></li><li><a id="skip-search" href="#top-nav-search-input">Skip to search</a></li></ul>
<div class="page-wrapper category-{a.m('area', 'javascript').lower()} document-page"><div class="top-banner loading"><section class="place top container"></section></div>
<div class="sticky-header-container"><header class="top-navigation"><div class="container"><div class="top-navigation-wrap"><a href="/en-US/" class="logo" aria-label="DevRef homepage">DevRef</a><button type="button" class="button action has-icon main-menu-toggle" aria-haspopup="menu" aria-label="Open main menu" aria-expanded="false"></button></div>
<div class="top-navigation-main"><nav class="main-nav" aria-label="Main menu"><ul class="main-menu nojs"><li class="top-level-entry-container"><button type="button" class="top-level-entry menu-toggle">References</button><ul class="submenu references hidden"><li><a href="/en-US/docs/Web"><div class="submenu-content-container"><div class="submenu-item-heading">Overview / Web Technology</div><p class="submenu-item-description">Web technology reference for developers</p></div></a></li><li><a href="/en-US/docs/Web/HTML"><div class="submenu-item-heading">HTML</div><p class="submenu-item-description">Structure of content on the web</p></div></a></li><li><a href="/en-US/docs/Web/CSS"><div class="submenu-item-heading">CSS</div><p class="submenu-item-description">Code used to describe document style</p></a></li><li><a href="/en-US/docs/Web/JavaScript"><div class="submenu-item-heading">JavaScript</div><p class="submenu-item-description">General-purpose scripting language</p></a></li><li><a href="/en-US/docs/Web/HTTP"><div class="submenu-item-heading">HTTP</div><p class="submenu-item-description">Protocol for transmitting web resources</p></a></li></ul></li><li><button type="button" class="top-level-entry menu-toggle">Guides</button></li><li><a href="/en-US/plus" class="top-level-entry">Plus</a></li><li><a href="/en-US/curriculum/" class="top-level-entry">Curriculum</a></li><li><a href="/en-US/blog/" class="top-level-entry">Blog</a></li></ul></nav>
<div class="header-search"><form action="/en-US/search" role="search" class="search-form search-widget" id="top-nav-search-form"><label for="top-nav-search-input" class="visually-hidden">Search DevRef</label><input aria-autocomplete="list" aria-controls="top-nav-search-menu" aria-expanded="false" class="search-input-field" id="top-nav-search-input" name="q" placeholder="   " required type="search"></form></div><a href="/users/fxa/login/" class="login-link">Log in</a></div></div></header>
<div class="article-actions-container"><div class="container"><nav class="breadcrumbs-container"><ol typeof="BreadcrumbList" vocab="https://schema.org/" aria-label="breadcrumbs">{''.join(f'<li property="itemListElement" typeof="ListItem"><a href="/en-US/docs/{c}" class="breadcrumb" property="item" typeof="WebPage"><span property="name">{esc(c)}</span></a><meta property="position" content="{i + 1}"></li>' for i, c in enumerate(a.m('crumbs', 'References').split('/')))}</ol></nav>
<div class="article-actions"><button type="button" class="button action has-icon article-actions-toggle" aria-label="Article actions"><span class="button-wrap"><span class="article-actions-dialog-heading">Article Actions</span></span></button><ul class="article-actions-entries"><li class="article-actions-entry"><div class="languages-switcher-menu open-on-focus-within"><button type="button" class="button action small has-icon languages-switcher-button">English (US)</button></div></li></ul></div></div></div></div>
<div class="main-wrapper"><div class="sidebar-container"><aside id="sidebar-quicklinks" class="sidebar" data-macro="jsref"><button type="button" class="button action backdrop" aria-label="Collapse sidebar"></button><nav aria-label="Related Topics" class="sidebar-inner"><header class="sidebar-actions"><section class="sidebar-filter-container"><div class="sidebar-filter "><label id="sidebar-filter-label" class="sidebar-filter-label" for="sidebar-filter-input"><span class="visually-hidden">Filter sidebar</span></label><input id="sidebar-filter-input" autocomplete="off" class="sidebar-filter-input-field false" type="text" value=""></div></section></header>
<div class="sidebar-body"><div class="in-nav-toc"><div class="document-toc-container"><section class="document-toc"><header><h2 class="document-toc-heading">In this article</h2></header><ul class="document-toc-list">{toc}</ul></section></div></div>
<ol><li class="section"><a href="/en-US/docs/Web/JavaScript">{esc(a.m('area', 'JavaScript'))}</a></li>
<li class="section no-link">Tutorials and guides</li><li class="toggle"><details><summary>Beginner's tutorials</summary><ol>{''.join(f'<li><a href="/en-US/docs/Learn/{g.replace(" ", "_")}">{esc(g)}</a></li>' for g in ['Your first website', 'JavaScript first steps', 'JavaScript building blocks', 'Introducing JavaScript objects', 'Asynchronous JavaScript', 'Client-side web APIs'])}</ol></details></li>
<li class="toggle"><details><summary>Guides</summary><ol>{''.join(f'<li><a href="/en-US/docs/Guide/{g.replace(" ", "_")}">{esc(g)}</a></li>' for g in ['Introduction', 'Grammar and types', 'Control flow and error handling', 'Loops and iteration', 'Functions', 'Expressions and operators', 'Numbers and dates', 'Text formatting', 'Regular expressions', 'Indexed collections', 'Keyed collections', 'Working with objects', 'Using classes', 'Using promises', 'Iterators and generators', 'Meta programming', 'JavaScript modules'])}</ol></details></li>
<li class="section no-link">References</li><li class="toggle"><details><summary>Built-in objects</summary><ol>{''.join(f'<li><a href="/en-US/docs/Global_Objects/{g}"><code>{g}</code></a></li>' for g in ['AggregateError', 'Array', 'ArrayBuffer', 'AsyncFunction', 'Atomics', 'BigInt', 'Boolean', 'DataView', 'Date', 'Error', 'FinalizationRegistry', 'Function', 'Intl', 'JSON', 'Map', 'Math', 'Number', 'Object', 'Promise', 'Proxy', 'Reflect', 'RegExp', 'Set', 'String', 'Symbol', 'WeakMap', 'WeakRef', 'WeakSet'])}</ol></details></li><li class="toggle"><details open=""><summary>Instance methods</summary><ol>{''.join(f'<li><a href="/en-US/docs/x/{s.strip()}"><code>{esc(s.strip())}</code></a></li>' for s in side if s.strip())}</ol></details></li></ol></div></nav></aside>
<div class="toc-container"><aside class="toc"><nav><div class="document-toc-container"><section class="document-toc"><header><h2 class="document-toc-heading">In this article</h2></header><ul class="document-toc-list">{toc}</ul></section></div></nav></aside></div></div>
<main id="content" class="main-content" role="main"><article class="main-page-content" lang="en-US"><header><h1>{esc(a.title)}</h1>
<details class="baseline-indicator high"><summary><h2>Baseline <span class="not-bold">Widely available</span></h2><div class="browsers"><span class="engine" title="Supported in Chrome and Edge"><span class="browser chrome supported" role="img" aria-label="Chrome check"></span></span></div><span class="icon icon-chevron"></span></summary><div class="extra"><p>This feature is well established and works across many devices and browser versions. It's been available across browsers since {a.m('baseline', 'January 2020')}.</p><ul><li><a href="/en-US/docs/Glossary/Baseline/Compatibility">Learn more</a></li><li><a href="#browser_compatibility">See full compatibility</a></li><li><a href="https://survey.example.org/baseline">Report feedback</a></li></ul></div></details></header>
{body}
</article><aside class="article-footer"><div class="article-footer-inner"><div class="svg-container"></div><h2>Help improve DevRef</h2><fieldset class="feedback"><label>Was this page helpful to you?</label><div class="button-container"><button type="button" class="button primary has-icon yes"><span class="button-wrap">Yes</span></button><button type="button" class="button primary has-icon no"><span class="button-wrap">No</span></button></div></fieldset>
<a class="contribute" href="https://github.com/devref/content/blob/main/CONTRIBUTING.md" title="This will take you to our contribution guidelines on GitHub." target="_blank" rel="noopener noreferrer">Learn how to contribute</a>.<p class="last-modified-date">This page was last modified on <time dateTime="{a.m('date')}T08:00:00.000Z">{us_date(a)}</time> by <a href="/en-US/docs/x/contributors.txt" rel="nofollow">DevRef contributors</a>.</p><div id="on-github" class="on-github"><a href="https://github.com/devref/content/blob/main/files/en-us/x/index.md?plain=1" title="Folder: en-us/x (Opens in a new tab)" target="_blank" rel="noopener noreferrer">View this page on GitHub</a> • <a href="https://github.com/devref/content/issues/new?template=page-report.yml" title="This will take you to GitHub to file a new issue." target="_blank" rel="noopener noreferrer">Report a problem with this content</a></div></div></aside></main></div></div>
<footer id="nav-footer" class="page-footer"><div class="page-footer-grid"><div class="page-footer-logo-col"><a href="/" class="page-footer-logo" aria-label="DevRef homepage">DevRef</a><p>Your blueprint for a better internet.</p></div><div class="page-footer-nav-col-1"><h2 class="footer-nav-heading">DevRef</h2><ul class="footer-nav-list"><li class="footer-nav-item"><a href="/en-US/about">About</a></li><li class="footer-nav-item"><a href="/en-US/blog/">Blog</a></li><li class="footer-nav-item"><a href="https://jobs.example.org/">Careers</a></li><li class="footer-nav-item"><a href="/en-US/advertising">Advertise with us</a></li></ul></div>
<div class="page-footer-nav-col-2"><h2 class="footer-nav-heading">Support</h2><ul class="footer-nav-list"><li class="footer-nav-item"><a class="footer-nav-link" href="https://support.example.org/">Product help</a></li><li class="footer-nav-item"><a class="footer-nav-link" href="/en-US/docs/DevRef/Community/Issues">Report an issue</a></li></ul></div>
<div class="page-footer-legal"><p id="license" class="page-footer-legal-text">Visit the <a href="https://foundation.example.org" target="_blank" rel="noopener">DevRef Foundation</a>'s not-for-profit parent. Portions of this content are ©1998–2024 by individual contributors. Content available under <a href="/en-US/docs/DevRef/Writing_guidelines/Attrib_copyright_license">a Creative Commons license</a>.</p><ul class="footer-legal"><li><a href="https://example.org/about/legal/terms/" target="_blank" rel="noopener">Terms</a></li><li><a href="https://example.org/privacy/websites/" target="_blank" rel="noopener">Privacy</a></li><li><a href="https://example.org/privacy/websites/#cookies" target="_blank" rel="noopener">Cookies</a></li></ul></div></div></footer></div>
{bundle(rng, 45000)}</body></html>"""


# --- GitHub repository README -----------------------------------------------------------

class ReadmeBody(Body):
    link_attrs = ' rel="nofollow"'

    def heading(self, level, text):
        a = _anchor(text)
        return (f'<div class="markdown-heading" dir="auto"><h{level} tabindex="-1" class="heading-element" dir="auto">{self.inl(text)}</h{level}>'
                f'<a id="user-content-{a}" class="anchor" aria-label="Permalink: {attr(plain(text))}" href="#{a}"><svg class="octicon octicon-link" viewBox="0 0 16 16" version="1.1" width="16" height="16" aria-hidden="true"><path d="m7.775 3.275 1.25-1.25a3.5 3.5 0 1 1 4.95 4.95l-2.5 2.5a3.5 3.5 0 0 1-4.95 0"></path></svg></a></div>')

    def code(self, text, lang):
        return (f'<div class="highlight highlight-source-{lang or "text"} notranslate position-relative overflow-auto" dir="auto"><pre>{highlight(text, lang, "hljs").replace("hljs-", "pl-")}</pre>'
                f'<div class="zeroclipboard-container"><clipboard-copy aria-label="Copy" class="ClipboardButton btn btn-invisible js-clipboard-copy m-2 p-0 d-flex flex-justify-center flex-items-center" data-copy-feedback="Copied!" data-tooltip-direction="w" value="{html.escape(text)}" tabindex="0" role="button"><svg aria-hidden="true" height="16" viewBox="0 0 16 16" version="1.1" width="16" class="octicon octicon-copy js-clipboard-copy-icon"><path d="M0 6.75C0 5.784.784 5 1.75 5h1.5a.75.75 0 0 1 0 1.5h-1.5"></path></svg></clipboard-copy></div></div>')

    def note(self, title, text):
        return f'<div class="markdown-alert markdown-alert-{title.lower()}" dir="auto"><p class="markdown-alert-title" dir="auto"><svg class="octicon octicon-info mr-2" viewBox="0 0 16 16" width="16" height="16"><path d="M0 8a8 8 0 1 1 16 0A8 8 0 0 1 0 8Z"></path></svg>{self.inl(title)}</p><p dir="auto">{self.inl(text)}</p></div>'

    def para(self, text):
        return f'<p dir="auto">{self.inl(text)}</p>'

    def fig(self, name, text):
        return f'<p dir="auto"><a target="_blank" rel="noopener noreferrer" href="/{name}"><img src="/{name}" alt="{attr(text)}" style="max-width: 100%;"></a></p>'


@skin("github")
def github(a: Article, rng) -> str:
    owner, repo = a.m("repo", "owner/repo").split("/")
    body = ReadmeBody(a).render()
    files = [(".github/workflows", "ci: run the tests on 1.22 and 1.23", "last month"), ("cmd", "Add --dry-run to the sync command", "3 weeks ago"),
             ("docs", "docs: explain the retry budget", "2 weeks ago"), ("internal", "Fix a race when two workers claim one job", "5 days ago"),
             (".gitignore", "Initial commit", "3 years ago"), ("CHANGELOG.md", "Release v1.9.0", "5 days ago"), ("LICENSE", "Initial commit", "3 years ago"),
             ("README.md", "README: document the config file", "5 days ago"), ("go.mod", "Bump golang.org/x/sys from 0.17.0 to 0.18.0", "last week")]
    rows = "".join(f'<tr class="react-directory-row"><td class="react-directory-row-name-cell-large-screen"><div class="react-directory-filename-column"><a title="{f}" aria-label="{f}, ({"Directory" if "." not in f else "File"})" class="Link--primary" href="/{owner}/{repo}/tree/main/{f}">{f}</a></div></td><td class="react-directory-row-commit-cell"><div class="react-directory-commit-message"><a class="Link--secondary" href="/{owner}/{repo}/commit/{rng.randint(10**6, 10**7):x}">{esc(m)}</a></div></td><td><div class="react-directory-commit-age"><relative-time class="sc-aXZVg">{w}</relative-time></div></td></tr>' for f, m, w in files)
    return f"""<!DOCTYPE html>
<html lang="en" data-color-mode="auto" data-light-theme="light" data-dark-theme="dark"><head>{decl(a)}<link rel="dns-prefetch" href="https://github.githubassets.com">
<link crossorigin="anonymous" media="all" rel="stylesheet" href="https://github.githubassets.com/assets/light-0eace2597ca3.css"><link crossorigin="anonymous" media="all" rel="stylesheet" href="https://github.githubassets.com/assets/github-6e5f1b8a2c4d.css">
<style>{stylesheet(rng, 200, 'Box-')}</style><title>GitHub - {owner}/{repo}: {esc(a.m('deck'))}</title><meta name="description" content="{attr(a.m('deck'))}">
<meta name="viewport" content="width=device-width"><meta property="og:title" content="GitHub - {owner}/{repo}"></head>
<body class="logged-out env-production page-responsive" style="word-wrap: break-word;"><div class="logged-out env-production page-responsive"><div class="position-relative js-header-wrapper"><a href="#start-of-content" data-skip-target-assigned="false" class="px-2 py-4 color-bg-accent-emphasis color-fg-on-emphasis show-on-focus js-skip-to-content">Skip to content</a>
<header class="HeaderMktg header-logged-out js-details-container js-header Details f4 py-3" role="banner"><div class="container-xl d-flex flex-column flex-lg-row flex-items-center p-responsive height-full position-relative z-1"><a class="mr-lg-3 color-fg-inherit flex-order-2" href="https://github.com/" aria-label="Homepage"><svg height="32" aria-hidden="true" viewBox="0 0 24 24" version="1.1" width="32" class="octicon octicon-mark-github"><path d="M12.5.75C6.146.75 1 5.896 1 12.25c0 5.089 3.292 9.387"></path></svg></a>
<nav aria-label="Global"><ul class="d-lg-flex list-style-none">{''.join(f'<li class="HeaderMenu-item position-relative flex-wrap flex-justify-between flex-items-center d-block d-lg-flex flex-lg-nowrap flex-lg-items-center js-details-container js-header-menu-item"><button type="button" class="HeaderMenu-link border-0 width-full width-lg-auto px-0 px-lg-2 py-lg-2 no-wrap d-flex flex-items-center flex-justify-between js-details-target" aria-expanded="false">{x}</button></li>' for x in ['Product', 'Solutions', 'Resources', 'Open Source', 'Enterprise', 'Pricing'])}</ul></nav>
<div class="d-lg-flex flex-items-center mb-3 mb-lg-0 text-center text-lg-left ml-3" style=""><a href="/login" class="HeaderMenu-link HeaderMenu-link--sign-in flex-shrink-0 no-underline d-block d-lg-inline-block border border-lg-0 rounded rounded-lg-0 p-2 p-lg-0">Sign in</a><a href="/signup" class="HeaderMenu-link HeaderMenu-link--sign-up flex-shrink-0 d-none d-lg-inline-block no-underline border color-border-default rounded px-2 py-1">Sign up</a></div></div></header></div>
<div class="application-main" data-commit-hovercards-enabled data-discussion-hovercards-enabled data-issue-and-pr-hovercards-enabled><main id="js-repo-pjax-container">
<div id="repository-container-header" class="pt-3 hide-full-screen" style="background-color: var(--page-header-bgColor, var(--color-page-header-bg));" data-turbo-replace><div class="d-flex flex-nowrap flex-justify-end mb-3 px-3 px-lg-5" style="gap: 1rem;"><div class="flex-auto min-width-0 width-fit"><div class="d-flex flex-wrap flex-items-center wb-break-word f3 text-normal"><span class="author flex-self-stretch" itemprop="author"><a class="url fn" rel="author" data-hovercard-type="user" href="/{owner}">{owner}</a></span><span class="mx-1 flex-self-stretch color-fg-muted">/</span><strong itemprop="name" class="mr-2 flex-self-stretch"><a data-pjax="#repo-content-pjax-container" href="/{owner}/{repo}">{repo}</a></strong><span></span><span class="Label Label--secondary v-align-middle mr-1">Public</span></div></div>
<div id="repository-details-container" class="flex-shrink-0" data-turbo-replace style="max-width: 70%;"><ul class="pagehead-actions flex-shrink-0 d-none d-md-inline" style="padding: 2px 0;"><li><a href="/login?return_to=%2F{owner}%2F{repo}" rel="nofollow" class="tooltipped tooltipped-sw btn-sm btn" aria-label="You must be signed in to change notification settings">Notifications</a></li><li><a icon="repo-forked" id="fork-button" href="/login?return_to=%2F{owner}%2F{repo}" rel="nofollow" class="btn-sm btn">Fork <span id="repo-network-counter" class="Counter">{rng.randint(20, 400)}</span></a></li><li><a href="/login?return_to=%2F{owner}%2F{repo}" rel="nofollow" class="btn-sm btn" aria-label="You must be signed in to star a repository">Star <span id="repo-stars-counter-star" class="Counter js-social-count">{rng.randint(1, 9)}.{rng.randint(1, 9)}k</span></a></li></ul></div></div>
<nav data-pjax="#js-repo-pjax-container" aria-label="Repository" data-view-component="true" class="js-repo-nav js-sidenav-container-pjax js-responsive-underlinenav overflow-hidden UnderlineNav px-3 px-md-4 px-lg-5"><ul data-view-component="true" class="UnderlineNav-body list-style-none">{''.join(f'<li data-view-component="true" class="d-inline-flex"><a id="{x.lower()}-tab" href="/{owner}/{repo}/{x.lower()}" class="UnderlineNav-item no-wrap js-responsive-underlinenav-item js-selected-navigation-item"><span data-content="{x}">{x}</span><span class="Counter">{c}</span></a></li>' for x, c in [('Code', ''), ('Issues', rng.randint(5, 90)), ('Pull requests', rng.randint(1, 20)), ('Discussions', ''), ('Actions', ''), ('Security', ''), ('Insights', '')])}</ul></nav></div>
<turbo-frame id="repo-content-turbo-frame" target="_top" data-turbo-action="advance" class=""><div id="repo-content-pjax-container" class="repository-content "><h1 class="sr-only">{owner}/{repo}</h1><div class="clearfix container-xl px-md-4 px-lg-5 px-3"><div><div class="Layout Layout--flowRow-until-md react-repos-overview-margin Layout--sidebarPosition-end Layout--sidebarPosition-flowRow-end"><div class="Layout-main">
<div class="Box mb-3"><div class="Box-header position-relative"><div class="d-flex flex-items-center"><a class="Link--primary text-bold" href="/{a.m('author', owner)}">{esc(a.m('author', owner))}</a> <span class="Link--secondary">{esc(files[5][1])}</span> <span class="ml-2">{rng.randint(100, 2000)} Commits</span></div></div>
<table aria-labelledby="folders-and-files" class="Table__StyledTable-sc-w1h1a-0"><thead class="sr-only"><tr><th><span class="text-bold">Name</span></th><th><span class="text-bold">Last commit message</span></th><th><span class="text-bold">Last commit date</span></th></tr></thead><tbody>{rows}</tbody></table></div>
<div class="Box-sc-g0xbh4-0 eHDvBA"><div class="Box-sc-g0xbh4-0 ehcSsh"><nav class="UnderlineNav"><ul role="list"><li class="Box-sc-g0xbh4-0 kOxwQs"><a aria-current="page" href="#readme-ov-file" class="Link__StyledLink"><span data-component="text">README</span></a></li><li><a href="#MIT-1-ov-file"><span data-component="text">MIT license</span></a></li></ul></nav></div>
<div class="Box-sc-g0xbh4-0 js-snippet-clipboard-copy-unpositioned" data-hpc="true"><article class="markdown-body entry-content container-lg" itemprop="text">
<div class="markdown-heading" dir="auto"><h1 tabindex="-1" class="heading-element" dir="auto">{esc(a.title)}</h1><a id="user-content-{_anchor(a.title)}" class="anchor" aria-label="Permalink: {attr(a.title)}" href="#{_anchor(a.title)}"><svg class="octicon octicon-link" viewBox="0 0 16 16" version="1.1" width="16" height="16" aria-hidden="true"><path d="m7.775 3.275 1.25-1.25"></path></svg></a></div>
<p dir="auto"><a href="https://github.com/{owner}/{repo}/actions/workflows/ci.yml"><img src="https://github.com/{owner}/{repo}/actions/workflows/ci.yml/badge.svg" alt="CI" style="max-width: 100%;"></a> <a href="https://pkg.go.dev/github.com/{owner}/{repo}" rel="nofollow"><img src="https://camo.githubusercontent.com/a1/reference.svg" alt="Go Reference" style="max-width: 100%;"></a></p>
{body}
</article></div></div></div>
<div class="Layout-sidebar"><div class="BorderGrid about-margin"><div class="BorderGrid-row"><div class="BorderGrid-cell"><h2 class="mb-3 h4">About</h2><p class="f4 my-3">{esc(a.m('deck'))}</p><h3 class="sr-only">Topics</h3><div class="my-3"><div class="f6">{''.join(f'<a href="/topics/{t}" title="Topic: {t}" data-view-component="true" class="topic-tag topic-tag-link">{esc(t)}</a>' for t in a.tags)}</div></div>
<h3 class="sr-only">Resources</h3><div class="mt-2"><a class="Link--muted" href="#readme-ov-file">Readme</a></div><h3 class="sr-only">License</h3><div class="mt-2"><a href="#MIT-1-ov-file" class="Link--muted">MIT license</a></div><div class="mt-2"><a href="/{owner}/{repo}/activity" class="Link--muted">Activity</a></div><div class="mt-2"><strong>{rng.randint(1, 9)}.{rng.randint(1, 9)}k</strong> stars</div><div class="mt-2"><strong>{rng.randint(20, 90)}</strong> watching</div></div></div>
<div class="BorderGrid-row"><div class="BorderGrid-cell"><h2 class="h4 mb-3"><a href="/{owner}/{repo}/releases" class="Link--primary no-underline">Releases <span title="{rng.randint(10, 40)}" class="Counter">{rng.randint(10, 40)}</span></a></h2><a href="/{owner}/{repo}/releases/tag/v1.9.0" class="d-flex flex-items-center"><span class="css-truncate css-truncate-target text-bold mr-2" style="max-width: none;">v1.9.0</span><span title="Label: Latest" class="Label Label--success flex-shrink-0">Latest</span></a></div></div>
<div class="BorderGrid-row"><div class="BorderGrid-cell"><h2 class="h4 mb-3">Contributors <span class="Counter">{rng.randint(10, 60)}</span></h2></div></div>
<div class="BorderGrid-row"><div class="BorderGrid-cell"><h2 class="h4 mb-3">Languages</h2><ul class="list-style-none"><li class="d-inline"><span class="color-fg-default text-bold mr-1">{a.m('lang_main', 'Go')}</span><span>9{rng.randint(0, 9)}.{rng.randint(0, 9)}%</span></li><li class="d-inline"><span class="color-fg-default text-bold mr-1">Makefile</span><span>1.{rng.randint(0, 9)}%</span></li><li class="d-inline"><span class="color-fg-default text-bold mr-1">Shell</span><span>0.{rng.randint(1, 9)}%</span></li></ul></div></div></div></div>
</div></div></div></div></turbo-frame></main></div>
<footer class="footer pt-8 pb-6 f6 color-fg-muted p-responsive" role="contentinfo"><h2 class='sr-only'>Footer</h2><div class="d-flex flex-justify-center flex-items-center flex-column-reverse flex-lg-row flex-wrap flex-lg-nowrap"><div class="d-flex flex-items-center flex-shrink-0 mx-2"><span>&copy; 2024 GitHub,&nbsp;Inc.</span></div><nav aria-label="Footer"><h3 class="sr-only" id="sr-footer-heading">Footer navigation</h3><ul class="list-style-none d-flex flex-justify-center flex-wrap mb-2 mb-lg-0" aria-labelledby="sr-footer-heading">{''.join(f'<li class="mx-2"><a class="Link--secondary" href="https://docs.github.com/{x.lower()}">{x}</a></li>' for x in ['Terms', 'Privacy', 'Security', 'Status', 'Docs', 'Contact', 'Manage cookies', 'Do not share my personal information'])}</ul></nav></div></footer>
<div id="ajax-error-message" class="ajax-error-message flash flash-error" hidden><svg aria-hidden="true" height="16" viewBox="0 0 16 16" version="1.1" width="16" class="octicon octicon-alert"><path d="M6.457 1.047c.659-1.234 2.427-1.234 3.086 0"></path></svg><button type="button" class="flash-close js-ajax-error-dismiss" aria-label="Dismiss error"></button>You can’t perform that action at this time.</div>
{bundle(rng, 50000)}</div></body></html>"""
