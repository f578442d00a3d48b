"""News skins: a wire service, a big news site of React div soup, a regional paper laid out
with tables, an HTML5 semantic site, a paginated magazine, a French regional paper, a
university newsroom (Drupal)."""
from __future__ import annotations

import json

from articledoc import Article, attr, esc, gold_text, inline_html
from body import Body
from chrome import (analytics, bundle, cookie_banner, json_ld, nav, newsletter, share_bar,
                    stylesheet, teaser_list)
from pools import NEWS_TEASERS, TECH_TEASERS, name, pick
from skinkit import base, decl, host, long_date, skin, us_date


# --- wire service -----------------------------------------------------------------------

class WireBody(Body):
    def para(self, text):
        i = self.n_para - 1
        return f'<div data-testid="paragraph-{i}" class="text__text__1FZLe text__dark-grey__3Ml43 text__regular__2N1Xr body__full_width__ekUdw article-body__paragraph__2-BtD">{self.inl(text)}</div>'

    def heading(self, level, text):
        return f'<h2 data-testid="Heading" class="text__heading_5__1qUJ5 heading__base__2T28j">{self.inl(text)}</h2>'


@skin("wire")
def wire(a: Article, rng) -> str:
    sections = ["World", "Business", "Markets", "Sustainability", "Legal", "Breakingviews", "Technology",
                "Investigations", "Sports", "Science", "Lifestyle"]
    read_next = pick(NEWS_TEASERS, 5, rng)
    body = WireBody(a, {
        "signup": lambda: ('<div class="article-body__element__2p5pI"><div data-testid="SignUp" class="signup__container__3Z8ot">'
                           '<p>Sign up here for our daily briefing on the stories that move markets, delivered free to your inbox.</p>'
                           '<a href="/newsletters/daily-briefing">Sign up</a></div></div>'),
        "readalso": lambda: f'<div class="article-body__element__2p5pI related-coverage"><span>Related coverage</span><a href="/world/{rng.randint(10000, 99999)}">{esc(read_next[0][0])}</a></div>',
        "ad": lambda: '<div class="article-body__element__2p5pI"><div data-testid="ResponsiveAdSlot" class="ad-slot__container__1hD7y"><div id="ad-slot-inline-1" class="ad-slot__inner"></div><span class="ad-slot__label">Advertisement · Scroll to continue</span></div></div>',
    }).render()
    credit = a.m("credit", f"Reporting by {a.m('author')}; Editing by {name(rng)}")
    return f"""<!DOCTYPE html><html lang="en"><head>{decl(a)}<title>{esc(a.title)} | Meridian Wire</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="description" content="{attr(a.m('deck', a.title))}">
<meta property="og:title" content="{attr(a.title)}"><meta property="og:url" content="{a.m('url')}">
<style>{stylesheet(rng, 260, 'w')}</style>{json_ld(a, 'Meridian Wire')}{analytics(rng, 'wire')}</head>
<body><div id="fusion-app"><a class="skip-link" href="#main-content">Skip to main content</a>
<header class="site-header__container__2BHXq"><div class="site-header__logo"><a href="/">Meridian Wire</a></div>
{nav(sections, '', 'site-header__nav__1R2y4')}<div class="site-header__actions"><a href="/account/sign-in">Sign In</a><a href="/account/register" class="register">Register</a></div></header>
{cookie_banner(rng, 2)}
<main id="main-content" class="regular-article-layout__main__1tvBb"><article class="article__container__2-cGA">
<header class="article-header__container__3GmYx"><nav aria-label="Tags" class="article-header__tags__1xzqT"><a href="/{a.m('section', 'world').lower()}/">{esc(a.m('section', 'World'))}</a></nav>
<h1 data-testid="Heading" class="text__heading_2__1K_hh">{esc(a.title)}</h1>
<div class="article-header__dateline-container__3DFCY"><time datetime="{a.m('date')}T09:12:00Z"><span>{us_date(a)}</span><span>9:12 AM UTC</span><span>Updated 2 hours ago</span></time></div></header>
{share_bar(a.m('url'), 'article__share__3sv8F')}
<div class="article-body__container__3ypuX"><div class="article-body__content__17Yit">{body}</div>
<p class="sign-off-container__3C4Df"><span class="sign-off__text">{esc(credit)}</span></p>
<div class="trust-badge__container"><a href="/info-pages/meridian-trust-principles/">Our Standards: The Meridian Wire Trust Principles.</a></div></div>
{teaser_list(read_next, '/world', 'Read Next', 'read-next__container__1N5HA', 'h2')}
</article>
<aside class="regular-article-layout__right-rail__2IOY0">{teaser_list(pick(NEWS_TEASERS, 4, rng), '/business', 'Most Read', 'most-read__list', 'h2', False)}
{teaser_list(pick(NEWS_TEASERS, 5, rng), '/world', 'Latest', 'latest-news__list', 'h2')}
<div data-testid="ResponsiveAdSlot" class="ad-slot__container__1hD7y"><span class="ad-slot__label">Advertisement · Scroll to continue</span></div></aside>
</main>
<footer class="site-footer__container">{nav(['About Meridian', 'Careers', 'Meridian News Agency', 'Brand Attribution Guidelines', 'Contact Us', 'Accessibility', 'Terms of Use', 'Privacy', 'Cookies'], '', 'site-footer__links')}
<p>All quotes delayed a minimum of 15 minutes. See here for a complete list of exchanges and delays.</p><p>© 2024 Meridian Wire. All rights reserved.</p></footer>
</div>{bundle(rng, 40000)}</body></html>"""


# --- big news site: React div soup ------------------------------------------------------

class SoupBody(Body):
    def para(self, text):
        return (f'<div data-component="text-block" class="ssrcss-7uxr49-RichTextContainer e5tfeyi1">'
                f'<p class="ssrcss-1q0x1qg-Paragraph e1jhz7w10">{self.inl(text)}</p></div>')

    def heading(self, level, text):
        return f'<div data-component="subheadline-block" class="ssrcss-1xjjfut-BoxComponent"><h2 class="ssrcss-1tkgbfw-StyledHeading e10rt3ze0">{self.inl(text)}</h2></div>'

    def fig(self, name, text):
        return (f'<div data-component="image-block" class="ssrcss-1bnhkvj-ComponentWrapper"><figure class="ssrcss-wpgbih-StyledFigure e34k3c23">'
                f'<div class="ssrcss-ab5fd8-StyledFigureContainer"><span class="ssrcss-1b1mki6-Placeholder"><img alt="" src="https://media.example-cdn.net/ace/standard/976/{name}" loading="lazy" width="976" height="549"></span>'
                f'<span role="text" class="ssrcss-1aqmxm1-Copyright e5xb54n0"><span class="visually-hidden">Image source, </span>{esc(self.hooks["credit"]())}</span></div>'
                f'<figcaption class="ssrcss-1vaxdfv-StyledFigureCaption e34k3c21"><span class="visually-hidden">Image caption, </span>{self.inl(text)}</figcaption></figure></div>')

    def quote(self, text):
        return f'<div data-component="text-block" class="ssrcss-7uxr49-RichTextContainer"><blockquote class="ssrcss-quote"><p class="ssrcss-1q0x1qg-Paragraph">{self.inl(text)}</p></blockquote></div>'

    def pull(self, text):
        return f'<div data-component="pullquote-block" aria-hidden="true" class="ssrcss-pq"><p class="ssrcss-pq-text">{self.inl(text)}</p></div>'

    def table(self, rows):
        return f'<div data-component="table-block" class="ssrcss-table">{super().table(rows)}</div>'


@skin("bignews")
def bignews(a: Article, rng) -> str:
    ads = iter(range(1, 20))
    related = pick(NEWS_TEASERS, 6, rng)
    body = SoupBody(a, {
        "ad": lambda: (f'<div data-testid="ad-slot-mid-{next(ads)}" data-ad-slot="mpu" class="ssrcss-1b3r5on-AdContainer"><div class="ssrcss-ad-label">Advertisement</div>'
                       f'<div id="dotcom-mpu-{rng.randint(100, 999)}" class="dotcom-ad" style="min-height:250px"></div></div>'),
        "readalso": lambda: f'<div data-component="links-block" class="ssrcss-links"><p class="ssrcss-1q0x1qg-Paragraph"><b>Read more:</b> <a href="/news/uk-{rng.randint(60000000, 69999999)}">{esc(related[0][0])}</a></p></div>',
        "signup": lambda: newsletter(rng, 0, "ssrcss-newsletter-promo"),
        "credit": lambda: a.m("photo_credit", "Getty Images"),
    }).render()
    next_data = {"props": {"pageProps": {"page": {"article-data": {"data": {"article": {
        "headline": a.title, "byline": a.m("author"), "blocks": [{"type": "text", "model": {"text": t}} for t in gold_text(a).split("\n\n")]}}}}}},
        "page": "/news/[id]", "buildId": "r2x9Qe6Fq1"}
    next_json = json.dumps(next_data, ensure_ascii=False).replace("</", "<\\/")
    menu = ["Home", "News", "Sport", "Business", "Innovation", "Culture", "Travel", "Earth", "Video", "Live"]
    sub = ["UK", "World", "Politics", "Health", "Education", "Science", "Technology", "Entertainment", "England", "Scotland", "Wales", "Local news"]
    return f"""<!DOCTYPE html><html lang="en-GB" class="no-js"><head>{decl(a)}<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(a.title)} - Daily Courier News</title><link rel="canonical" href="{a.m('url')}">
<style data-emotion="ssrcss" data-s="">{stylesheet(rng, 1400, 'ssrcss-')}</style>{json_ld(a, 'Daily Courier')}</head>
<body><div id="__next"><div class="ssrcss-1ocoo3l-Wrap e42f8511"><div data-testid="consent-banner" class="ssrcss-consent">{cookie_banner(rng, 0)}</div>
<header data-testid="header-content" class="ssrcss-1n8rjzs-Header"><div class="ssrcss-logo"><a href="/"><span class="visually-hidden">Daily Courier Homepage</span></a></div>
{nav(menu, '', 'ssrcss-1qvr0d-GlobalNavigation')}<div data-testid="search"><button>Search</button></div><div class="ssrcss-account"><a href="/account">Sign in</a></div></header>
{nav(sub, '/news', 'ssrcss-secondary-nav')}
<div hidden class="ssrcss-drawer" data-testid="drawer-menu"><p>Menu</p>{nav(menu + sub, '', 'ssrcss-drawer-links')}<p>Choose your region to get local news, weather and travel updates where you live.</p></div>
<div class="ssrcss-1ki8hfp-StyledZone"><div class="ssrcss-grid"><main id="main-content" data-testid="main-content" class="ssrcss-1wbfh1y-Main">
<article class="ssrcss-pv1rh6-ArticleWrapper"><header data-component="headline-block" class="ssrcss-1eqcsb1-HeadingWrapper"><h1 id="main-heading" type="headline" tabindex="-1" class="ssrcss-15xko80-StyledHeading">{esc(a.title)}</h1></header>
<div data-component="byline-block" class="ssrcss-byline"><time data-testid="timestamp" datetime="{a.m('date')}T05:01:00.000Z">{long_date(a)}</time><div class="ssrcss-contributors"><span>By {esc(a.m('author'))}</span><span>{esc(a.m('role', 'Reporter'))}</span></div></div>
<div data-testid="share-tools" class="ssrcss-share">{share_bar(a.m('url'))}</div>
{body}
<div data-component="tag-list" class="ssrcss-tags"><h2>Related topics</h2><ul>{''.join(f'<li><a href="/news/topics/{t.replace(" ", "-")}">{esc(t)}</a></li>' for t in a.tags)}</ul></div>
{teaser_list(related, '/news', 'More on this story', 'ssrcss-related', 'h2')}
</article>{teaser_list(pick(NEWS_TEASERS, 6, rng), '/news', 'Top stories', 'ssrcss-top-stories', 'h2')}</main>
<aside class="ssrcss-aside" data-testid="most-read"><section><h2>Most read</h2><ol>{''.join(f'<li><span class="num">{i + 1}</span><a href="/news/articles/c{rng.randint(1000000, 9999999)}">{esc(h)}</a><p class="ssrcss-promo-summary">{esc(t)}</p></li>' for i, (h, t) in enumerate(pick(NEWS_TEASERS, 10, rng)))}</ol></section>
<div data-testid="ad-slot-sidebar" class="ssrcss-1b3r5on-AdContainer"><div class="ssrcss-ad-label">Advertisement</div></div>
{teaser_list(pick(NEWS_TEASERS, 3, rng), '/news', 'Features', 'ssrcss-features', 'h2')}</aside></div></div>
<footer class="ssrcss-footer" data-testid="footer"><div>{nav(['Terms of Use', 'About the Courier', 'Privacy Policy', 'Cookies', 'Accessibility Help', 'Parental Guidance', 'Contact the Courier', 'Get Personalised Newsletters', 'Why you can trust the Courier', 'Advertise with us'], '', 'ssrcss-footer-links')}
<p>Copyright 2024 Daily Courier. All rights reserved. The Courier is not responsible for the content of external sites. Read about our approach to external linking.</p></div></footer></div></div>
<script id="__NEXT_DATA__" type="application/json">{next_json}</script>
{bundle(rng, 140000)}{analytics(rng, 'courier')}</body></html>"""


# --- regional paper with layout tables --------------------------------------------------

class TableBody(Body):
    """Old CMS: paragraphs as text runs separated by <BR><BR> inside one cell, upper-case tags,
    <FONT> and <B><I> misnesting; entity-heavy."""
    em = "I"
    strong = "B"
    misnest = True
    sep = "\n"

    def para(self, text):
        return f"{self.inl(text)}<BR><BR>"

    def heading(self, level, text):
        return f"<B><FONT SIZE=\"+1\">{self.inl(text)}</FONT></B><BR><BR>"

    def fig(self, name, text):
        return (f'<TABLE ALIGN="right" WIDTH="260" CELLPADDING="4"><TR><TD><IMG SRC="/photos/{name}" WIDTH="250" BORDER="0"></TD></TR>'
                f'<TR><TD><FONT SIZE="-1" FACE="Arial"><I>{self.inl(text)}</I></FONT></TD></TR></TABLE>')

    def quote(self, text):
        return f"<BLOCKQUOTE>{self.inl(text)}</BLOCKQUOTE>"

    def ul(self, items):
        return "<UL>" + "".join(f"<LI>{self.inl(i)}" for i in items) + "</UL>"


@skin("regional")
def regional(a: Article, rng) -> str:
    tb = TableBody(a, {
        "ad": lambda: '<CENTER><TABLE BORDER="0"><TR><TD><FONT SIZE="-2">ADVERTISEMENT</FONT><BR><A HREF="/ads/click?id=4411"><IMG SRC="/ads/motors-300x250.gif" WIDTH="300" HEIGHT="250" ALT="Kelly Motors - Spring Sale"></A></TD></TR></TABLE></CENTER>',
        "readalso": lambda: f'<B>SEE ALSO:</B> <A HREF="/news/{rng.randint(1000, 9999)}.htm">{esc(pick(NEWS_TEASERS, 1, rng)[0][0])}</A><BR><BR>',
    })
    tb.entities = a.m("entities") == "yes"
    body = tb.render()
    left = "".join(f'<TR><TD CLASS="navlink"><A HREF="/{s.lower()}.htm"><FONT FACE="Arial" SIZE="2">{s}</FONT></A></TD></TR>'
                   for s in ["Home", "News", "Sport", "GAA", "Farming", "Business", "Opinion", "Letters", "Community Notes",
                             "Death Notices", "Property", "Motors", "Jobs", "Classifieds", "Archive", "Contact Us"])
    notices = "".join(f'<LI><A HREF="/rip/{rng.randint(100, 999)}.htm">{name(rng)}</A>, {rng.choice(["Ballyduff", "Knockmore", "Castlebridge", "Ardcullen", "Glenmoy"])}'
                      for _ in range(8))
    return f"""<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">
<HTML><HEAD>{decl(a, upper=True)}
<TITLE>{esc(a.title)} - The Kilbarron Champion</TITLE>
<META NAME="keywords" CONTENT="{attr(', '.join(a.tags))}">
<LINK REL="stylesheet" HREF="/css/champion.css" TYPE="text/css">
<SCRIPT LANGUAGE="JavaScript">function popUp(u){{window.open(u,'pop','width=500,height=400');}}</SCRIPT>
<STYLE>.navlink{{background:#003366;padding:3px}} .storytext{{font-family:Georgia;font-size:13px}}</STYLE></HEAD>
<BODY BGCOLOR="#FFFFFF" LEFTMARGIN="0" TOPMARGIN="0">
<TABLE WIDTH="980" BORDER="0" CELLSPACING="0" CELLPADDING="0" ALIGN="center">
<TR><TD COLSPAN="3"><A HREF="/"><IMG SRC="/images/masthead.gif" WIDTH="980" HEIGHT="110" ALT="The Kilbarron Champion - Serving the county since 1889"></A></TD></TR>
<TR><TD COLSPAN="3" BGCOLOR="#CCCCCC"><FONT SIZE="1" FACE="Verdana">{long_date(a)} | <A HREF="/subscribe.htm">Subscribe to the print edition</A> | <A HREF="/epaper.htm">E-Paper</A> | Weather: Showers, 11&deg;C</FONT></TD></TR>
<TR><TD WIDTH="150" VALIGN="top"><TABLE WIDTH="150" CELLSPACING="1">{left}</TABLE>
<P><FONT SIZE="1">Advertise in the Champion. Call our sales team on 066 712 2200 for rates and deadlines.</FONT></P></TD>
<TD WIDTH="560" VALIGN="top" CLASS="storytext">
<TABLE WIDTH="100%"><TR><TD><FONT SIZE="1"><A HREF="/">Home</A> &gt; <A HREF="/news.htm">News</A> &gt; Local</FONT></TD></TR></TABLE>
<FONT FACE="Georgia" SIZE="5"><B>{esc(a.title)}</B></FONT><BR>
<FONT SIZE="2" COLOR="#666666">By {esc(a.m('author'))}</FONT><BR><BR>
<FONT FACE="Georgia" SIZE="3">
{body}
</FONT>
<P><A HREF="javascript:popUp('/print.php?id={rng.randint(1000, 9999)}')">Printer friendly version</A> | <A HREF="/email.php">E-mail this story to a friend</A></P>
<HR><B>Comments</B><BR>
{''.join(f'<P><B>{esc(c.author)}</B> wrote on {esc(c.get(1))}:<BR>{"<BR>".join(esc(p) for p in c.paras)}</P>' for c in a.comments)}
<FORM ACTION="/comment.php" METHOD="post">Your name: <INPUT NAME="n"><BR><TEXTAREA NAME="c" ROWS="4" COLS="50"></TEXTAREA><BR><INPUT TYPE="submit" VALUE="Post comment"></FORM>
</TD>
<TD WIDTH="270" VALIGN="top" BGCOLOR="#F0F0F0">
<TABLE><TR><TD><B>DEATH NOTICES</B><UL>{notices}</UL></TD></TR>
<TR><TD><B>MOST READ THIS WEEK</B><OL>{''.join(f'<LI><A HREF="/news/{rng.randint(1000, 9999)}.htm">{esc(h)}</A>' for h, _ in pick(NEWS_TEASERS, 6, rng))}</OL></TD></TR>
<TR><TD><IMG SRC="/ads/hardware-250x400.gif" WIDTH="250" HEIGHT="400" ALT="Doyle's Hardware - everything for the farm and garden"></TD></TR></TABLE></TD></TR>
<TR><TD COLSPAN="3" ALIGN="center" BGCOLOR="#003366"><FONT COLOR="#FFFFFF" SIZE="1">&copy; The Kilbarron Champion Ltd. Reproduction of any material without permission is prohibited. Main Street, Kilbarron. Tel 066 712 2200.</FONT></TD></TR>
</TABLE></BODY></HTML>"""


# --- HTML5 semantic news site -----------------------------------------------------------

@skin("html5")
def html5(a: Article, rng) -> str:
    body = Body(a, {
        "ad": lambda: '<aside class="ad" aria-label="Advertisement"><p class="ad-label">Advertisement</p><div class="ad-slot" data-size="300x250"></div></aside>',
        "readalso": lambda: f'<aside class="inline-related"><p>Also read: <a href="/{rng.randint(2020, 2024)}/{rng.randint(1, 12):02d}/story">{esc(pick(NEWS_TEASERS, 1, rng)[0][0])}</a></p></aside>',
        "signup": lambda: newsletter(rng, 2),
    }).render()
    site = a.m("site", "The Northern Ledger")
    gate = ""
    if a.m("cut") == "paywall":
        gate = (f'<div class="paywall-gate" data-paywall="hard"><div class="paywall-fade" aria-hidden="true"></div><h2>This article is for subscribers</h2>'
                f'<p>Independent local journalism costs money to make. Subscribe today from £1 a week to keep reading, and get unlimited access to every story, our daily newsletter and the digital edition.</p>'
                f'<a class="btn" href="/subscribe?ref=paywall">Continue reading: subscribe now</a><p class="login">Already a subscriber? <a href="/login">Log in</a></p></div>')
    return f"""<!doctype html>
<html lang="{a.m('lang', 'en')}"><head>{decl(a)}<meta name="viewport" content="width=device-width,initial-scale=1">
<title>{esc(a.title)} — {esc(site)}</title><meta name="description" content="{attr(a.m('deck', ''))}">
<link rel="stylesheet" href="/assets/site.3f9a1c.css"><style>{stylesheet(rng, 120)}</style>{json_ld(a, site)}</head>
<body>
{cookie_banner(rng, 3)}
<header class="site-header"><a class="brand" href="/">{esc(site)}</a>
<nav aria-label="Main"><ul><li><a href="/news">News</a></li><li><a href="/politics">Politics</a></li><li><a href="/business">Business</a></li><li><a href="/climate">Climate</a></li><li><a href="/culture">Culture</a></li><li><a href="/opinion">Opinion</a></li><li><a href="/podcasts">Podcasts</a></li><li><a href="/newsletters">Newsletters</a></li><li><a href="/about">About us</a></li><li><a href="/donate" class="cta">Donate</a></li></ul></nav>
<form role="search" action="/search"><input type="search" name="q" aria-label="Search"></form></header>
<nav aria-label="Breadcrumb" class="breadcrumb"><ol><li><a href="/">Home</a></li><li><a href="/{a.m('section', 'news').lower()}">{esc(a.m('section', 'News'))}</a></li><li aria-current="page">{esc(a.title)}</li></ol></nav>
<main id="content">
<article>
<header><p class="kicker">{esc(a.m('section', 'News'))}</p><h1>{esc(a.title)}</h1>
{f'<p class="standfirst">{esc(a.m("deck"))}</p>' if a.m('deck') else ''}
<p class="byline">By <a rel="author" href="/authors/{a.m('author').lower().replace(' ', '-')}">{esc(a.m('author'))}</a> · <time datetime="{a.m('date')}">{long_date(a)}</time></p></header>
{body}
{gate}
<footer><p class="tags">Filed under: {', '.join(f'<a href="/tag/{t.replace(" ", "-")}">{esc(t)}</a>' for t in a.tags)}</p>
{share_bar(a.m('url'))}
<section class="author-bio"><h2>About the author</h2><p>{esc(a.m('bio', a.m('author') + ' is a staff reporter.'))}</p></section></footer>
</article>
<aside class="sidebar">{teaser_list(pick(NEWS_TEASERS, 5, rng), '/news', 'Most read', 'most-read', 'h2')}
{newsletter(rng, 0)}</aside>
</main>
<footer class="site-footer"><nav aria-label="Footer"><ul><li><a href="/about">About</a></li><li><a href="/ethics">Ethics policy</a></li><li><a href="/corrections">Corrections</a></li><li><a href="/privacy">Privacy</a></li><li><a href="/contact">Contact</a></li><li><a href="/jobs">Jobs</a></li></ul></nav>
<p>{esc(site)} is an independent, reader-funded newsroom. Copyright 2024.</p></footer>
{analytics(rng, 'ledger')}
</body></html>"""


# --- paginated magazine (page 1 of a multi-page feature) --------------------------------

class MagBody(Body):
    p_open = '<p class="paywall">'

    def heading(self, level, text):
        return f'<h2 class="body__subheading">{self.inl(text)}</h2>'

    def pull(self, text):
        return f'<div class="pullquote-container"><blockquote class="pullquote pullquote--large"><p>{self.inl(text)}</p></blockquote></div>'


@skin("magazine")
def magazine(a: Article, rng) -> str:
    body = MagBody(a, {
        "ad": lambda: '<div class="ad ad--in-content" data-node-id="ad-inline"><div class="ad__slot ad__slot--mid-content"></div><p class="ad__label">ADVERTISEMENT</p></div>',
        "signup": lambda: newsletter(rng, 3, "newsletter-subscribe-form"),
    }).render()
    pages = int(a.m("pages", "3"))
    if pages < 1:
        raise ValueError(f"{a.slug}: header 'pages' must be at least 1, got {pages}")
    pager = "".join(f'<li class="{"current" if i == 1 else ""}"><a href="{a.m("url")}{"" if i == 1 else f"?page={i}"}">{i}</a></li>' for i in range(1, pages + 1))
    pagination = ""
    if pages > 1:
        pagination = (f'<nav class="pagination" aria-label="Article pages"><p>Page 1 of {pages}</p><ul>{pager}</ul>'
                      f'<a class="next-page" href="{a.m("url")}?page=2">Next page: {esc(a.m("next", "continued"))} &raquo;</a></nav>')
    return f"""<!DOCTYPE html><html lang="en-US"><head>{decl(a)}<title>{esc(a.title)} | Lattice Science Monthly</title>
<meta name="viewport" content="width=device-width"><style>{stylesheet(rng, 300, 'lsm')}</style>{json_ld(a, 'Lattice Science Monthly')}{analytics(rng, 'lattice')}</head>
<body class="article-page"><div class="page">
<header class="global-header"><a class="logo" href="/">Lattice</a>{nav(['Physics', 'Space', 'Biology', 'Earth', 'Health', 'Technology', 'Mind', 'The Magazine', 'Podcast', 'Events'], '', 'global-nav')}
<a class="subscribe-btn" href="/subscribe">Subscribe — 12 issues for $24</a></header>
<div class="main-content"><div class="article-header"><p class="rubric"><a href="/{a.m('section', 'science').lower()}">{esc(a.m('section', 'Science'))}</a></p>
<h1 class="content-header__hed">{esc(a.title)}</h1><div class="content-header__dek">{esc(a.m('deck'))}</div>
<p class="byline">By <span class="byline__name">{esc(a.m('author'))}</span> | <time>{us_date(a)}</time> | <span>{a.m('readtime', '14')} min read</span></p></div>
<div class="article-body"><div class="grid--item body body__container article__body">{body}</div>
{pagination}
<div class="content-bottom"><p class="tags">{' '.join(f'<a href="/tag/{t}">{esc(t)}</a>' for t in a.tags)}</p>
<div class="contributor-bio"><p>{esc(a.m('bio'))}</p></div></div></div>
{teaser_list(pick(TECH_TEASERS, 3, rng) + pick(NEWS_TEASERS, 3, rng), '/story', 'More Great Lattice Stories', 'recirc-list', 'h2')}
</div>
<footer class="global-footer"><p>Lattice Science Monthly is published by Lattice Media Group. Subscribe to the print edition for investigations, features and puzzles every month.</p>
{nav(['Contact', 'Advertising', 'Press', 'Permissions', 'Privacy Policy', 'Terms of Use', 'Do Not Sell My Personal Information'], '', 'footer-nav')}</footer>
</div>{bundle(rng, 45000)}</body></html>"""


# --- French regional paper ---------------------------------------------------------------

class FrBody(Body):
    def para(self, text):
        return f'<p class="article__paragraph">{self.inl(text)}</p>'

    def heading(self, level, text):
        return f'<h2 class="article__sub-title">{self.inl(text)}</h2>'


@skin("frnews")
def frnews(a: Article, rng) -> str:
    body = FrBody(a, {
        "readalso": lambda: f'<section class="catcher catcher--inline"><span class="catcher__label">Lire aussi</span> <a class="catcher__title" href="/region/article/{rng.randint(2000000, 2999999)}">{esc(a.m("readalso", ""))}</a></section>',
        "ad": lambda: '<div class="dfp-slot dfp__inread" id="inread_top" data-format="inread"><span class="dfp__label">Publicité</span></div>',
    }).render()
    plus_lus = ["Météo : un épisode de pluies intenses attendu jeudi sur le littoral",
                "Le marché de Noël ouvrira finalement ses portes le 29 novembre",
                "Travaux sur la rocade : ce qui change pour les automobilistes dès lundi",
                "Football : le club amateur qualifié pour le huitième tour de la Coupe",
                "Immobilier : les prix des maisons anciennes reculent pour la première fois depuis 2015"]
    return f"""<!DOCTYPE html>
<html lang="fr"><head>{decl(a)}<title>{esc(a.title)} - L'Écho de l'Estuaire</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="description" content="{attr(a.m('deck'))}">
<style>{stylesheet(rng, 220, 'ee-')}</style>{json_ld(a, "L'Écho de l'Estuaire")}{analytics(rng, 'echo')}</head>
<body class="page-article">
<div id="didomi-host"><div class="didomi-popup-notice"><p>Avec votre accord, nous et nos 312 partenaires utilisons des cookies ou technologies similaires pour stocker et accéder à des informations personnelles comme votre visite sur ce site. Vous pouvez retirer votre consentement ou vous opposer aux traitements basés sur l'intérêt légitime à tout moment en cliquant sur « En savoir plus » ou dans notre politique de confidentialité sur ce site.</p>
<button>Accepter &amp; Fermer</button><button>Continuer sans accepter</button></div></div>
<header class="header"><a class="header__logo" href="/">L'Écho de l'Estuaire</a>
{nav(['Actualité', 'Faits divers', 'Politique', 'Économie', 'Sports', 'Culture', 'Loisirs', 'Nécrologie', 'Météo', 'Services'], '', 'header__nav')}
<a class="header__abo" href="/abonnement">Je m'abonne - 1€ le premier mois</a></header>
<nav class="breadcrumb"><a href="/">Accueil</a> › <a href="/region">{esc(a.m('section', 'Région'))}</a> › <a href="/region/ville">{esc(a.m('city', 'Ville'))}</a></nav>
<main class="main"><article class="article" data-article-id="{rng.randint(2000000, 2999999)}">
<header class="article__header"><h1 class="article__title">{esc(a.title)}</h1>
<p class="article__chapo">{esc(a.m('deck'))}</p>
<div class="article__meta"><span class="article__author">Par {esc(a.m('author'))}</span> - <time>Publié le {esc(a.m('frdate', ''))}</time></div></header>
<div class="article__share"><a href="#">Partager sur Facebook</a><a href="#">Partager sur X</a><a href="#">Envoyer par mail</a><a href="#">Copier le lien</a></div>
<div class="article__content">{body}</div>
<div class="article__tags">{' '.join(f'<a class="tag" href="/theme/{t}">{esc(t)}</a>' for t in a.tags)}</div>
<section class="article__comments"><h2>Réactions</h2>{''.join(f'<div class="comment"><p class="comment__author">{esc(c.author)}</p><p class="comment__text">{esc(" ".join(c.paras))}</p></div>' for c in a.comments)}
<p>Vous devez être abonné pour réagir à cet article. <a href="/connexion">Se connecter</a></p></section>
</article>
<aside class="sidebar"><section class="most-read"><h2>Les plus lus</h2><ol>{''.join(f'<li><a href="/a/{i}">{esc(t)}</a></li>' for i, t in enumerate(plus_lus))}</ol></section>
<div class="dfp-slot" id="pave_haut"><span class="dfp__label">Publicité</span></div>
<section class="newsletter"><h2>Newsletter</h2><p>Recevez chaque matin l'essentiel de l'actualité de votre département, directement dans votre boîte mail.</p><form><input type="email" placeholder="Votre adresse e-mail"><button>Je m'inscris</button></form></section></aside>
</main>
<footer class="footer"><p>© L'Écho de l'Estuaire - Tous droits réservés. Reproduction interdite sans autorisation.</p>{nav(['Mentions légales', 'Conditions générales', 'Politique de confidentialité', 'Gestion des cookies', 'Nous contacter', 'Annonces légales', 'Avis de décès'], '', 'footer__links')}</footer>
</body></html>"""


# --- university newsroom (Drupal) -------------------------------------------------------

class UniBody(Body):
    def fig(self, name, text):
        return (f'<div class="embedded-entity align-center"><article class="media media--type-image"><div class="field field--name-field-media-image field--type-image">'
                f'<img loading="lazy" src="/sites/default/files/styles/large/public/2024-03/{name}" width="1200" height="675" alt=""></div></article>'
                f'<div class="caption"><p>{self.inl(text)}</p></div></div>')


@skin("university")
def university(a: Article, rng) -> str:
    body = UniBody(a).render()
    mega = ["Study", "Undergraduate", "Postgraduate", "International", "Research", "Impact", "Faculties",
            "Library", "Alumni", "About us", "News and events", "Jobs", "Give to Ashdown", "Contact"]
    return f"""<!DOCTYPE html><html lang="en" dir="ltr"><head>{decl(a)}<meta name="viewport" content="width=device-width, initial-scale=1.0">
<meta name="Generator" content="Drupal 10 (https://www.drupal.org)"><title>{esc(a.title)} | Ashdown University</title>
<link rel="stylesheet" media="all" href="/sites/default/files/css/css_Yx1.css"><style>{stylesheet(rng, 150, 'uni-')}</style>{json_ld(a, 'Ashdown University')}</head>
<body class="path-node page-node-type-news"><a href="#main-content" class="visually-hidden focusable skip-link">Skip to main content</a>
<div class="dialog-off-canvas-main-canvas" data-off-canvas-main-canvas>
<div class="region region-alert"><div class="alert-banner"><p>Open days: book your place for our summer undergraduate open days on 22 and 23 June.</p></div></div>
<header role="banner" class="site-header"><div class="region region-header"><a href="/" rel="home" class="site-logo">Ashdown University</a></div>
<nav role="navigation" aria-labelledby="block-mainnavigation-menu" id="block-mainnavigation" class="block block-menu navigation menu--main"><h2 class="visually-hidden" id="block-mainnavigation-menu">Main navigation</h2>{nav(mega, '', 'menu', 'div')}</nav></header>
{cookie_banner(rng, 3)}
<div class="region region-breadcrumb"><nav class="breadcrumb" role="navigation"><ol><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/news/{a.m('section', 'research').lower()}">{esc(a.m('section', 'Research'))}</a></li></ol></nav></div>
<main role="main"><a id="main-content" tabindex="-1"></a><div class="layout-content"><div class="region region-content">
<div id="block-ashdown-page-title" class="block block-core block-page-title-block"><h1 class="page-title"><span class="field field--name-title">{esc(a.title)}</span></h1></div>
<div id="block-ashdown-content" class="block block-system block-system-main-block">
<article role="article" class="node node--type-news node--view-mode-full"><div class="node__meta"><span class="field--name-created">{long_date(a)}</span></div>
<div class="node__content"><div class="field field--name-field-subtitle field--type-string">{esc(a.m('deck'))}</div>
<div class="clearfix text-formatted field field--name-body field--type-text-with-summary field--label-hidden field__item">{body}</div>
<div class="field field--name-field-media-contact"><h3>Media contact</h3><p>{esc(a.m('contact', 'Press Office, press@ashdown.ac.uk, 01632 960 455'))}</p></div>
<div class="field field--name-field-tags"><div class="field__label">Tags</div>{''.join(f'<div class="field__item"><a href="/taxonomy/term/{rng.randint(10, 400)}">{esc(t)}</a></div>' for t in a.tags)}</div>
</div></article></div></div></div>
<aside class="layout-sidebar-second" role="complementary"><div class="region region-sidebar-second">
{teaser_list([('Ashdown joins national battery research hub', 'Engineers will lead two of the hub’s six work packages over the next five years.'), ('Student volunteers log 10,000 hours in a year', 'Projects ranged from homework clubs to river clean-ups and a repair café.'), ('New chancellor installed at ceremony', 'The historian becomes the university’s eighth chancellor since its charter in 1966.')], '/news', 'Related news', 'block-views-related-news', 'h2')}
<div class="block events"><h2>Upcoming events</h2><ul><li><a href="/events/1">Public lecture: the archaeology of salt</a> 14 March, 6pm</li><li><a href="/events/2">Careers fair for science students</a> 19 March, 10am</li><li><a href="/events/3">Chamber choir spring concert</a> 23 March, 7.30pm</li></ul></div></div></aside></main>
<footer role="contentinfo" class="site-footer"><div class="region region-footer"><p>Ashdown University, Hollins Road, Ashdown AS1 4QP. Telephone +44 (0)1632 960 000.</p>
<p>Ashdown University is an exempt charity. Registered with the Office for Students.</p>{nav(['Accessibility', 'Freedom of information', 'Modern slavery statement', 'Privacy', 'Cookies', 'Terms'], '', 'menu--footer')}</div></footer></div>
{analytics(rng, 'ashdown')}</body></html>"""
