"""Blog skins: WordPress classic and block themes, Ghost, a Medium-like and a Substack-like
platform, a recipe blog with a recipe card, Blogger, a minimal static-site blog, a Japanese
blog."""
from __future__ import annotations

import hashlib
import re

from articledoc import Article, attr, Block, esc
from body import Body
from chrome import (analytics, bundle, cookie_banner, json_ld, nav, newsletter, share_bar,
                    stylesheet, teaser_list)
from pools import FOOD_TEASERS, LIFE_TEASERS, TECH_TEASERS, pick
from skinkit import base, decl, host, long_date, skin, us_date


def _comment_items(a: Article, li_cls: str, body_cls: str, meta_cls: str) -> str:
    out = []
    for i, c in enumerate(a.comments):
        paras = "".join(f"<p>{esc(p)}</p>" for p in c.paras)
        out.append(f'<li id="comment-{1000 + i}" class="{li_cls}"><article class="{body_cls}"><footer class="{meta_cls}">'
                   f'<div class="comment-author vcard"><img alt="" src="/avatar/{i}.png" class="avatar" height="48" width="48"><b class="fn">{esc(c.author)}</b> <span class="says">says:</span></div>'
                   f'<div class="comment-metadata"><a href="#comment-{1000 + i}"><time>{esc(c.get(1))}</time></a></div></footer>'
                   f'<div class="comment-content">{paras}</div><div class="reply"><a rel="nofollow" class="comment-reply-link" href="#respond">Reply</a></div></article></li>')
    return "".join(out)


# --- WordPress classic theme ------------------------------------------------------------

class WpClassicBody(Body):
    def fig(self, name, text):
        return (f'<div id="attachment_{len(name) * 37}" class="wp-caption aligncenter" style="width: 1034px"><img aria-describedby="caption-attachment" class="size-large" src="/wp-content/uploads/2024/03/{name}" width="1024" height="683">'
                f'<p id="caption-attachment" class="wp-caption-text">{self.inl(text)}</p></div>')


@skin("wpclassic")
def wpclassic(a: Article, rng) -> str:
    site = a.m("site", "Spoke & Saddle")
    body = WpClassicBody(a, {
        "ad": lambda: '<div class="code-block code-block-2" style="margin: 8px auto; text-align: center;"><ins class="adsbygoogle" style="display:block" data-ad-client="ca-pub-4471" data-ad-slot="88231"></ins><script>(adsbygoogle=window.adsbygoogle||[]).push({});</script></div>',
        "signup": lambda: newsletter(rng, 1, "mc4wp-form"),
    }).render()
    related = pick(LIFE_TEASERS, 3, rng)
    widgets = (f'<section id="search-2" class="widget widget_search"><form role="search" class="search-form" action="/"><label><span class="screen-reader-text">Search for:</span><input type="search" class="search-field" name="s"></label><input type="submit" class="search-submit" value="Search"></form></section>'
               f'<section id="text-3" class="widget widget_text"><h2 class="widget-title">About</h2><div class="textwidget"><p>{esc(a.m("about", "A blog about bikes, long rides and the small repairs that keep them going."))}</p></div></section>'
               f'<section id="recent-posts-2" class="widget widget_recent_entries"><h2 class="widget-title">Recent Posts</h2><ul>{"".join(f"<li><a href=/{i}/>{esc(h)}</a></li>" for i, (h, _) in enumerate(pick(LIFE_TEASERS, 5, rng)))}</ul></section>'
               f'<section id="recent-comments-2" class="widget widget_recent_comments"><h2 class="widget-title">Recent Comments</h2><ul id="recentcomments">{"".join(f"<li class=recentcomments><span class=comment-author-link>{esc(c.author)}</span> on <a href=#>{esc(a.title)}</a></li>" for c in a.comments[:3])}</ul></section>'
               '<section id="archives-2" class="widget widget_archive"><h2 class="widget-title">Archives</h2><ul>' + "".join(f'<li><a href="/2024/{m:02d}/">{mn} 2024</a></li>' for m, mn in [(3, "March"), (2, "February"), (1, "January")]) + "".join(f'<li><a href="/2023/{m:02d}/">{mn} 2023</a></li>' for m, mn in [(12, "December"), (11, "November"), (10, "October"), (9, "September")]) + '</ul></section>'
               f'<section id="categories-2" class="widget widget_categories"><h2 class="widget-title">Categories</h2><ul>{"".join(f"<li class=cat-item><a href=/category/{t}/>{esc(t)}</a></li>" for t in ["Touring", "Repairs", "Kit", "Routes", "Uncategorized"])}</ul></section>')
    return f"""<!DOCTYPE html>
<html lang="en-GB"><head>{decl(a)}<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(a.title)} &#8211; {esc(site)}</title><meta name='robots' content='max-image-preview:large'>
<link rel='stylesheet' id='twentysixteen-style-css' href='/wp-content/themes/twentysixteen/style.css?ver=20231107' media='all'>
<style id='wp-emoji-styles-inline-css'>img.wp-smiley, img.emoji {{display: inline !important; border: none !important;}}</style><style>{stylesheet(rng, 140, 'ts-')}</style>
{json_ld(a, site)}<script src="/wp-includes/js/jquery/jquery.min.js?ver=3.7.1" id="jquery-core-js"></script></head>
<body class="post-template-default single single-post postid-{rng.randint(100, 9999)} single-format-standard">
<div id="page" class="site"><div class="site-inner"><a class="skip-link screen-reader-text" href="#content">Skip to content</a>
<header id="masthead" class="site-header"><div class="site-header-main"><div class="site-branding"><p class="site-title"><a href="/" rel="home">{esc(site)}</a></p><p class="site-description">{esc(a.m('tagline', 'Notes from the saddle'))}</p></div>
<div id="site-header-menu" class="site-header-menu"><nav id="site-navigation" class="main-navigation" aria-label="Primary Menu"><div class="menu-main-container"><ul id="menu-main" class="primary-menu">{''.join(f'<li class="menu-item"><a href="/{x.lower()}/">{x}</a></li>' for x in ['Home', 'About', 'Routes', 'Repairs', 'Kit', 'Contact'])}</ul></div></nav></div></div></header>
<div id="content" class="site-content"><div id="primary" class="content-area"><main id="main" class="site-main">
<article id="post-{rng.randint(100, 9999)}" class="post type-post status-publish format-standard has-post-thumbnail hentry category-{a.tags[0] if a.tags else 'uncategorized'}">
<header class="entry-header"><h1 class="entry-title">{esc(a.title)}</h1></header>
<div class="entry-content">
{body}
<div class="sharedaddy sd-sharing-enabled"><div class="robots-nocontent sd-block sd-social sd-social-icon-text sd-sharing"><h3 class="sd-title">Share this:</h3><div class="sd-content"><ul><li class="share-twitter"><a class="share-twitter sd-button" href="?share=twitter" target="_blank"><span>Twitter</span></a></li><li class="share-facebook"><a class="share-facebook sd-button" href="?share=facebook"><span>Facebook</span></a></li><li class="share-print"><a class="share-print sd-button" href="#print"><span>Print</span></a></li></ul></div></div></div>
<div class="sharedaddy sd-block sd-like jetpack-likes-widget-wrapper"><h3 class="sd-title">Like this:</h3><div class="likes-widget-placeholder post-likes-widget-placeholder"><span class="loading">Loading...</span></div></div>
<div id='jp-relatedposts' class='jp-relatedposts'><h3 class="jp-relatedposts-headline"><em>Related</em></h3>{''.join(f'<div class="jp-relatedposts-post"><h4 class="jp-relatedposts-post-title"><a href="/{i}/">{esc(h)}</a></h4><p class="jp-relatedposts-post-excerpt">{esc(t)}</p><p class="jp-relatedposts-post-context">In "{esc(a.tags[0] if a.tags else "Notes")}"</p></div>' for i, (h, t) in enumerate(related))}</div>
</div>
<div class="author-info"><div class="author-avatar"><img alt="" src="/avatar/author.png" height="42" width="42"></div><div class="author-description"><h2 class="author-title"><span class="author-heading">Author:</span> {esc(a.m('author'))}</h2><p class="author-bio">{esc(a.m('bio'))} <a class="author-link" href="/author/{a.m('author').split()[0].lower()}/" rel="author">View all posts by {esc(a.m('author'))}</a></p></div></div>
<footer class="entry-footer"><span class="byline"><span class="author vcard"><span class="screen-reader-text">Author </span><a class="url fn n" href="/author/">{esc(a.m('author'))}</a></span></span><span class="posted-on"><span class="screen-reader-text">Posted on </span><a href="{a.m('url')}" rel="bookmark"><time class="entry-date published" datetime="{a.m('date')}">{us_date(a)}</time></a></span><span class="tags-links"><span class="screen-reader-text">Tags </span>{', '.join(f'<a href="/tag/{t}/" rel="tag">{esc(t)}</a>' for t in a.tags)}</span></footer>
</article>
<nav class="navigation post-navigation" aria-label="Posts"><h2 class="screen-reader-text">Post navigation</h2><div class="nav-links"><div class="nav-previous"><a href="/prev/" rel="prev"><span class="meta-nav" aria-hidden="true">Previous</span> <span class="post-title">{esc(related[0][0])}</span></a></div><div class="nav-next"><a href="/next/" rel="next"><span class="meta-nav" aria-hidden="true">Next</span> <span class="post-title">{esc(related[1][0])}</span></a></div></div></nav>
<div id="comments" class="comments-area"><h2 class="comments-title">{len(a.comments)} thoughts on &ldquo;{esc(a.title)}&rdquo;</h2><ol class="comment-list">{_comment_items(a, 'comment even thread-even depth-1', 'comment-body', 'comment-meta')}</ol>
<div id="respond" class="comment-respond"><h2 id="reply-title" class="comment-reply-title">Leave a Reply</h2><form action="/wp-comments-post.php" method="post" id="commentform" class="comment-form"><p class="comment-notes"><span id="email-notes">Your email address will not be published.</span> Required fields are marked <span class="required">*</span></p><p class="comment-form-comment"><label for="comment">Comment</label><textarea id="comment" name="comment" cols="45" rows="8"></textarea></p><p class="form-submit"><input name="submit" type="submit" id="submit" class="submit" value="Post Comment"></p></form></div></div>
</main></div>
<aside id="secondary" class="sidebar widget-area">{widgets}</aside></div>
<footer id="colophon" class="site-footer"><div class="site-info"><span class="site-title"><a href="/" rel="home">{esc(site)}</a></span><a href="https://wordpress.org/" class="imprint">Proudly powered by WordPress</a></div></footer>
</div></div>{analytics(rng, 'wp')}<script src="/wp-includes/js/comment-reply.min.js?ver=6.4.3" id="comment-reply-js" async></script>{bundle(rng, 25000)}</body></html>"""


# --- WordPress block theme --------------------------------------------------------------

class WpBlockBody(Body):
    def heading(self, level, text):
        return f'<h{level} class="wp-block-heading">{self.inl(text)}</h{level}>'

    def ul(self, items):
        return '<ul class="wp-block-list">' + "".join(f"<li>{self.inl(i)}</li>" for i in items) + "</ul>"

    def ol(self, items):
        return '<ol class="wp-block-list">' + "".join(f"<li>{self.inl(i)}</li>" for i in items) + "</ol>"

    def fig(self, name, text):
        return (f'<figure class="wp-block-image size-large"><img decoding="async" width="1024" height="768" src="/wp-content/uploads/2024/05/{name}" alt="" class="wp-image-{len(name) * 11}">'
                f'<figcaption class="wp-element-caption">{self.inl(text)}</figcaption></figure>')

    def quote(self, text):
        return f'<blockquote class="wp-block-quote is-layout-flow"><p>{self.inl(text)}</p></blockquote>'

    def pull(self, text):
        return f'<figure class="wp-block-pullquote"><blockquote><p>{self.inl(text)}</p></blockquote></figure>'

    def table(self, rows):
        return f'<figure class="wp-block-table">{super().table(rows)}</figure>'

    def code(self, text, lang):
        return f'<pre class="wp-block-code"><code>{esc(text)}</code></pre>'


@skin("wpblock")
def wpblock(a: Article, rng) -> str:
    site = a.m("site", "The Patient Gardener")
    body = WpBlockBody(a, {
        "ad": lambda: '<div class="wp-block-group is-style-ad"><p class="has-small-font-size">Advertisement</p><div class="ad-unit" data-slot="in-content"></div></div>',
        "signup": lambda: f'<div class="wp-block-jetpack-subscriptions__container">{newsletter(rng, 1, "wp-block-jetpack-subscriptions")}</div>',
        "related": lambda: teaser_list(pick(LIFE_TEASERS, 3, rng), '', 'You might also like', 'wp-block-group related-inline', 'h3'),
    }).render()
    comments = "".join(f'<li class="wp-block-post comment"><div class="wp-block-group"><div class="wp-block-comment-author-name">{esc(c.author)}</div><div class="wp-block-comment-date"><time>{esc(c.get(1))}</time></div></div><div class="wp-block-comment-content">{"".join(f"<p>{esc(p)}</p>" for p in c.paras)}</div><div class="wp-block-comment-reply-link"><a href="#respond">Reply</a></div></li>' for c in a.comments)
    return f"""<!DOCTYPE html>
<html lang="en-US"><head>{decl(a)}<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(a.title)} &#8211; {esc(site)}</title>
<style id='global-styles-inline-css'>{stylesheet(rng, 420, 'wp-')}</style>
<style id='core-block-supports-inline-css'>.wp-container-core-group-is-layout-1{{flex-wrap:nowrap;justify-content:space-between;}}</style>{json_ld(a, site)}</head>
<body class="post-template-default single single-post wp-embed-responsive">
<div class="wp-site-blocks"><header class="wp-block-template-part"><div class="wp-block-group alignwide is-layout-flex"><p class="wp-block-site-title"><a href="/" rel="home">{esc(site)}</a></p><p class="wp-block-site-tagline">{esc(a.m('tagline', 'Growing things slowly'))}</p>
<nav class="is-responsive items-justified-right wp-block-navigation" aria-label="Header navigation"><button aria-haspopup="dialog" aria-label="Open menu" class="wp-block-navigation__responsive-container-open"></button><div class="wp-block-navigation__responsive-container"><ul class="wp-block-navigation__container">{''.join(f'<li class="wp-block-navigation-item"><a class="wp-block-navigation-item__content" href="/{x.lower().replace(" ", "-")}/"><span class="wp-block-navigation-item__label">{x}</span></a></li>' for x in ['Vegetables', 'Fruit', 'Flowers', 'Seasonal jobs', 'Q&amp;A', 'About'])}</ul></div></nav></div></header>
{cookie_banner(rng, 1)}
<main class="wp-block-group is-layout-constrained"><div class="wp-block-group has-global-padding is-layout-constrained">
<h1 class="has-text-align-left wp-block-post-title">{esc(a.title)}</h1>
<div class="wp-block-group is-layout-flex"><div class="wp-block-post-date"><time datetime="{a.m('date')}">{us_date(a)}</time></div><div class="wp-block-post-author-name">{esc(a.m('author'))}</div><div class="taxonomy-category wp-block-post-terms">{', '.join(f'<a href="/category/{t}/" rel="tag">{esc(t)}</a>' for t in a.tags[:2])}</div></div>
<figure class="wp-block-post-featured-image"><img src="/wp-content/uploads/2024/05/featured.jpg" alt="" style="object-fit:cover;"></figure></div>
<div class="entry-content alignfull wp-block-post-content has-global-padding is-layout-constrained">{body}</div>
<div class="wp-block-group"><div class="taxonomy-post_tag wp-block-post-terms"><span class="wp-block-post-terms__prefix">Tags: </span>{', '.join(f'<a href="/tag/{t}/" rel="tag">{esc(t)}</a>' for t in a.tags)}</div>
<nav class="wp-block-group is-layout-flex" aria-label="Post navigation"><div class="post-navigation-link-previous wp-block-post-navigation-link"><a href="/prev/" rel="prev">{esc(pick(LIFE_TEASERS, 1, rng)[0][0])}</a></div><div class="post-navigation-link-next wp-block-post-navigation-link"><a href="/next/" rel="next">{esc(pick(LIFE_TEASERS, 1, rng)[0][0])}</a></div></nav></div>
<div class="wp-block-comments"><h2 class="wp-block-comments-title">{len(a.comments)} responses to &#8220;{esc(a.title)}&#8221;</h2><ol class="wp-block-comment-template">{comments}</ol>
<div id="respond" class="comment-respond wp-block-post-comments-form"><h3 id="reply-title" class="comment-reply-title">Leave a Reply</h3><form action="/wp-comments-post.php" method="post"><p class="comment-form-comment"><label for="comment">Comment <span class="required">*</span></label> <textarea id="comment" name="comment"></textarea></p><p class="form-submit wp-block-button"><input type="submit" class="wp-block-button__link wp-element-button" value="Post Comment"></p></form></div></div>
</main>
<footer class="wp-block-template-part"><div class="wp-block-group has-global-padding"><div class="wp-block-columns"><div class="wp-block-column"><h2 class="wp-block-heading">About</h2><p>{esc(a.m('about', 'A small garden, a big compost heap and fifteen years of notes.'))}</p></div>
<div class="wp-block-column"><h2 class="wp-block-heading">Popular</h2>{teaser_list(pick(LIFE_TEASERS, 3, rng), '', 'Popular posts', 'wp-block-latest-posts', 'h3', False)}</div></div>
<p class="has-text-align-center">Designed with WordPress</p></div></footer></div>
<script src="/wp-includes/js/dist/interactivity.min.js" id="wp-interactivity-js"></script>{analytics(rng, 'wpb')}{bundle(rng, 30000)}</body></html>"""


# --- Ghost ------------------------------------------------------------------------------

class GhostBody(Body):
    def fig(self, name, text):
        return (f'<figure class="kg-card kg-image-card kg-card-hascaption"><img src="/content/images/2024/02/{name}" class="kg-image" alt="" loading="lazy" width="2000" height="1333" srcset="/content/images/size/w600/2024/02/{name} 600w, /content/images/size/w1000/2024/02/{name} 1000w" sizes="(min-width: 720px) 720px">'
                f'<figcaption><span style="white-space: pre-wrap;">{self.inl(text)}</span></figcaption></figure>')

    def note(self, title, text):
        return (f'<div class="kg-card kg-callout-card kg-callout-card-blue"><div class="kg-callout-emoji">💡</div><div class="kg-callout-text">'
                f'<b><strong style="white-space: pre-wrap;">{self.inl(title)}</strong></b><br>{self.inl(text)}</div></div>')

    def code(self, text, lang):
        return f'<pre><code class="language-{lang}">{esc(text)}</code></pre>'

    def pull(self, text):
        return f'<blockquote class="kg-blockquote-alt">{self.inl(text)}</blockquote>'


@skin("ghost")
def ghost(a: Article, rng) -> str:
    site = a.m("site", "Pager Duty Diaries")
    body = GhostBody(a, {
        "signup": lambda: (f'<div class="kg-card kg-cta-card kg-cta-bg-grey"><div class="kg-cta-content"><div class="kg-cta-text"><p>Enjoying this? {esc(site)} is free and reader-supported. Subscribe to get new essays by email.</p></div>'
                           '<a href="#/portal/signup" class="kg-cta-button">Subscribe</a></div></div>'),
    }).render()
    return f"""<!DOCTYPE html>
<html lang="en"><head>{decl(a)}<meta http-equiv="X-UA-Compatible" content="IE=edge"><title>{esc(a.title)}</title>
<meta name="HandheldFriendly" content="True"><meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" type="text/css" href="/assets/built/screen.css?v=a1b2c3d4e5"><style>{stylesheet(rng, 200, 'gh-')}</style>
<meta name="description" content="{attr(a.m('deck'))}"><meta name="generator" content="Ghost 5.82">{json_ld(a, site)}
<script defer src="https://cdn.jsdelivr.net/ghost/portal@~2.37/umd/portal.min.js" data-i18n="true" data-ghost="{base(a)}/" data-key="a1b2c3" data-api="{base(a)}/ghost/api/content/" crossorigin="anonymous"></script>
<style id="gh-members-styles">.gh-post-upgrade-cta-content,.gh-post-upgrade-cta {{display: flex;flex-direction: column;align-items: center;}}</style></head>
<body class="post-template tag-{a.tags[0] if a.tags else 'essay'} has-sans-title has-serif-body">
<div class="gh-site"><header id="gh-head" class="gh-head outer"><div class="gh-head-inner inner"><div class="gh-head-brand"><a class="gh-head-logo" href="/">{esc(site)}</a><button class="gh-search gh-icon-btn" aria-label="Search this site" data-ghost-search></button><button class="gh-burger"></button></div>
<nav class="gh-head-menu"><ul class="nav"><li class="nav-home"><a href="/">Home</a></li><li class="nav-archive"><a href="/archive/">Archive</a></li><li class="nav-about"><a href="/about/">About</a></li><li class="nav-talks"><a href="/talks/">Talks</a></li><li class="nav-rss"><a href="/rss/">RSS</a></li></ul></nav>
<div class="gh-head-actions"><a class="gh-head-link" href="#/portal/signin" data-portal="signin">Sign in</a><a class="gh-head-button" href="#/portal/signup" data-portal="signup">Subscribe</a></div></div></header>
<main id="gh-main" class="gh-main"><article class="gh-article post tag-essay">
<header class="gh-article-header gh-canvas"><a class="gh-article-tag" href="/tag/{a.tags[0] if a.tags else 'essay'}/">{esc(a.tags[0] if a.tags else 'Essay')}</a><h1 class="gh-article-title is-title" id="gh-article-title">{esc(a.title)}</h1>
<p class="gh-article-excerpt is-body">{esc(a.m('deck'))}</p><div class="gh-article-meta"><div class="gh-article-author-image"><a href="/author/{a.m('author').split()[0].lower()}/"><img class="author-profile-image" src="/content/images/author.jpg" alt="{attr(a.m('author'))}"></a></div>
<div class="gh-article-meta-wrapper"><h4 class="gh-article-author-name"><a href="/author/">{esc(a.m('author'))}</a></h4><div class="gh-article-meta-content"><time class="gh-article-meta-date" datetime="{a.m('date')}">{long_date(a)}</time><span class="gh-article-meta-length"><span class="bull">—</span> {a.m('readtime', '7')} min read</span></div></div></div></header>
<section class="gh-content gh-canvas is-body">{body}</section>
</article>
<section class="gh-container is-grid gh-outer"><div class="gh-container-inner gh-inner"><h2 class="gh-container-title">Read more</h2><div class="gh-feed">{''.join(f'<article class="gh-card post"><a class="gh-card-link" href="/{i}/"><div class="gh-card-wrapper"><h3 class="gh-card-title is-title">{esc(h)}</h3><p class="gh-card-excerpt is-body">{esc(t)}</p><footer class="gh-card-meta"><time class="gh-card-date">{rng.randint(1, 28)} Jan 2024</time></footer></div></a></article>' for i, (h, t) in enumerate(pick(TECH_TEASERS, 4, rng)))}</div></div></section>
<section class="footer-cta outer"><div class="inner"><h2 class="footer-cta-title">Sign up for {esc(site)}</h2><p>Essays on reliability, incident response and the human side of operations, about twice a month.</p><a class="footer-cta-button" href="#/portal" data-portal><div class="footer-cta-input">Enter your email</div><span>Subscribe</span></a></div></section>
</main>
<footer class="gh-foot outer"><div class="gh-foot-inner inner"><div class="gh-copyright">{esc(site)} © 2024</div><nav class="gh-foot-menu"><ul class="nav"><li><a href="/privacy/">Privacy</a></li><li><a href="/contact/">Contact</a></li><li><a href="#/portal/">Sign up</a></li></ul></nav><div class="gh-powered-by"><a href="https://ghost.org/" target="_blank" rel="noopener">Powered by Ghost</a></div></div></footer></div>
<div class="pswp" tabindex="-1" role="dialog" aria-hidden="true"><div class="pswp__bg"></div><div class="pswp__ui pswp__ui--hidden"><button class="pswp__button pswp__button--close" title="Close (Esc)"></button><div class="pswp__caption"><div class="pswp__caption__center"></div></div></div></div>
<script src="/assets/built/source.js?v=a1b2c3d4e5"></script>{bundle(rng, 22000)}</body></html>"""


# --- Medium-like ------------------------------------------------------------------------

def _mid(rng) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(4))


def _mcls(rng, n=8) -> str:
    return " ".join(rng.choice("abcdefghijklmnopqrstuvwxyz") + rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))


class MediumBody(Body):
    def __init__(self, article, hooks, rng):
        super().__init__(article, hooks)
        self.rng = rng

    def para(self, text):
        return f'<p id="{_mid(self.rng)}" class="pw-post-body-paragraph {_mcls(self.rng, 14)}" data-selectable-paragraph="">{self.inl(text)}</p>'

    def heading(self, level, text):
        return f'<h2 id="{_mid(self.rng)}" class="{_mcls(self.rng, 12)}" data-selectable-paragraph="">{self.inl(text)}</h2>'

    def pull(self, text):
        # Medium renders pull quotes as blockquote: a trap for "blockquote is content".
        return f'<blockquote class="{_mcls(self.rng, 3)}"><p id="{_mid(self.rng)}" class="{_mcls(self.rng, 9)}" data-selectable-paragraph=""><em class="{_mcls(self.rng, 1)}">{self.inl(text)}</em></p></blockquote>'

    def quote(self, text):
        return f'<blockquote class="{_mcls(self.rng, 3)}"><p id="{_mid(self.rng)}" class="{_mcls(self.rng, 9)}" data-selectable-paragraph="">{self.inl(text)}</p></blockquote>'

    def fig(self, name, text):
        return (f'<figure class="{_mcls(self.rng, 6)}"><div role="button" tabindex="0" class="{_mcls(self.rng, 4)}"><div class="{_mcls(self.rng, 3)}"><picture><source srcset="https://miro.example.com/v2/resize:fit:640/format:webp/{name} 640w" type="image/webp"><img alt="" class="bg {_mcls(self.rng, 3)}" width="700" height="467" loading="eager" role="presentation"></picture></div></div>'
                f'<figcaption class="{_mcls(self.rng, 6)}" data-selectable-paragraph="">{self.inl(text)}</figcaption></figure>')

    def ul(self, items):
        return f'<ul class="">' + "".join(f'<li id="{_mid(self.rng)}" class="{_mcls(self.rng, 10)}" data-selectable-paragraph="">{self.inl(i)}</li>' for i in items) + "</ul>"

    def code(self, text, lang):
        return f'<pre class="{_mcls(self.rng, 6)}"><span id="{_mid(self.rng)}" class="{_mcls(self.rng, 5)}" data-code-block-mode="1" spellcheck="false" data-code-block-lang="{lang}">{esc(text)}</span></pre>'


@skin("medium")
def medium(a: Article, rng) -> str:
    body = MediumBody(a, {}, rng).render()
    author = a.m("author")
    responses = "".join(f'<div class="{_mcls(rng, 4)}"><div class="{_mcls(rng, 3)}"><a href="/@{c.author.split()[0].lower()}"><p class="{_mcls(rng, 5)}">{esc(c.author)}</p></a><p class="{_mcls(rng, 4)}">{esc(c.get(1))}</p></div><pre class="{_mcls(rng, 4)}">{esc(" ".join(c.paras))}</pre><div><button>{rng.randint(1, 40)}</button><button>Reply</button></div></div>' for c in a.comments)
    return f"""<!doctype html><html lang="en"><head>{decl(a)}<title>{esc(a.title)} | by {esc(author)} | {esc(a.m('pub', 'Medium'))}</title>
<meta name="viewport" content="width=device-width,minimum-scale=1,initial-scale=1,maximum-scale=1"><meta data-rh="true" name="description" content="{attr(a.m('deck'))}">
<style type="text/css" data-fela-rehydration="579" data-fela-type="STATIC">{stylesheet(rng, 500, '')}</style>{json_ld(a, 'Medium')}</head>
<body><div id="root"><div class="a b c"><div class="d e f g h i j k"></div><div class="{_mcls(rng, 5)}"><div class="{_mcls(rng, 4)}"><div class="l m n o p q r s t"><a data-testid="headerMediumLogo" href="/" aria-label="Homepage"><svg viewBox="0 0 1043.63 592.71"><path d="M588.67 296.36c0 163.67"></path></svg></a>
<div class="{_mcls(rng, 3)}"><div role="search"><input data-testid="headerSearchInput" placeholder="Search" value=""></div></div></div>
<div class="{_mcls(rng, 3)}"><a data-testid="headerWriteButton" href="/new-story"><div><span>Write</span></div></a><a href="/m/signin">Sign up</a><a href="/m/signin">Sign in</a></div></div></div>
<div class="{_mcls(rng, 4)}"><div class="u v w x y z"><p>Member-only story</p></div></div>
<article><div class="l"><div class="l"><section><div><div class="{_mcls(rng, 5)}"><div class="{_mcls(rng, 4)}"><div class="ch bg fz ga gb gc">
<div><h1 id="{_mid(rng)}" class="pw-post-title {_mcls(rng, 10)}" data-testid="storyTitle" data-selectable-paragraph="">{esc(a.title)}</h1></div>
<div><h2 id="{_mid(rng)}" class="pw-subtitle-paragraph {_mcls(rng, 10)}" data-selectable-paragraph="">{esc(a.m('deck'))}</h2></div>
<div class="speechify-ignore {_mcls(rng, 3)}"><div class="{_mcls(rng, 4)}"><a href="/@{author.split()[0].lower()}"><img alt="{attr(author)}" class="l ep by dd de cw" src="https://miro.example.com/v2/resize:fill:88:88/1*avatar.jpeg" width="44" height="44"></a>
<div><span data-testid="authorName"><a href="/@{author.split()[0].lower()}">{esc(author)}</a></span><span> · </span><button>Follow</button></div>
<div><span data-testid="storyReadTime">{a.m('readtime', '6')} min read</span><span> · </span><span data-testid="storyPublishDate">{us_date(a)}</span></div></div>
<div class="{_mcls(rng, 3)}"><div><button data-testid="headerClapButton" aria-label="clap"><svg></svg></button><p><button>{rng.randint(200, 4000)}</button></p></div><button aria-label="responses"><p><span>{len(a.comments)}</span></p></button><button aria-label="Add to list">Save</button><button aria-label="Listen">Listen</button><button aria-label="Share">Share</button></div></div>
{body}
</div></div></div></div></section></div></div></article>
<div class="{_mcls(rng, 4)}"><div class="{_mcls(rng, 3)}"><div class="{_mcls(rng, 5)}">{''.join(f'<a href="/tag/{t}" rel="noopener follow"><div class="{_mcls(rng, 4)}">{esc(t)}</div></a>' for t in a.tags)}</div></div></div>
<div class="{_mcls(rng, 4)}"><div><h2 class="{_mcls(rng, 6)}"><a href="/@{author.split()[0].lower()}"><span>Written by {esc(author)}</span></a></h2><div><span>{rng.randint(2, 40)}K Followers</span></div><p class="{_mcls(rng, 5)}">{esc(a.m('bio'))}</p><button>Follow</button></div></div>
<div class="{_mcls(rng, 4)}"><h2>Responses ({len(a.comments)})</h2><div><p>What are your thoughts?</p><button>Respond</button></div>{responses}</div>
<div class="{_mcls(rng, 4)}"><h2>More from {esc(author)}</h2>{''.join(f'<div><a href="/p/{_mid(rng)}"><h2 class="{_mcls(rng, 4)}">{esc(h)}</h2><h3 class="{_mcls(rng, 4)}">{esc(t)}</h3></a></div>' for h, t in pick(TECH_TEASERS, 4, rng))}</div>
<div class="{_mcls(rng, 4)}"><h2>Recommended from Medium</h2>{''.join(f'<div><a href="/p/{_mid(rng)}"><h2 class="{_mcls(rng, 4)}">{esc(h)}</h2><h3 class="{_mcls(rng, 4)}">{esc(t)}</h3></a></div>' for h, t in pick(LIFE_TEASERS, 4, rng))}</div>
<div class="{_mcls(rng, 3)}"><a href="https://help.medium.com">Help</a><a href="https://medium.statuspage.io">Status</a><a href="/about">About</a><a href="/jobs">Careers</a><a href="/press">Press</a><a href="https://blog.medium.com">Blog</a><a href="/policy/privacy">Privacy</a><a href="/policy/terms">Terms</a><a href="https://speechify.com/medium">Text to speech</a><a href="/business">Teams</a></div>
</div></div><script>window.__APOLLO_STATE__ = {{"ROOT_QUERY":{{"__typename":"Query","viewer":null}}}}</script>{bundle(rng, 70000)}</body></html>"""


# --- Substack-like ----------------------------------------------------------------------

class SubstackBody(Body):
    def fig(self, name, text):
        return (f'<div class="captioned-image-container"><figure><a class="image-link image2 is-viewable-img" target="_blank" href="https://substackcdn.example.com/image/fetch/{name}"><div class="image2-inset"><picture><source type="image/webp" srcset="https://substackcdn.example.com/image/fetch/w_424/{name} 424w"><img src="https://substackcdn.example.com/image/fetch/w_1456/{name}" width="1456" height="971" class="sizing-normal" alt="" loading="lazy"></picture>'
                f'<div class="image-link-expand"><button tabindex="0" type="button" class="pencraft restack-image">Restack</button></div></div></a><figcaption class="image-caption">{self.inl(text)}</figcaption></figure></div>')

    def heading(self, level, text):
        return f'<h{level} class="header-anchor-post">{self.inl(text)}<div class="pencraft header-anchor-parent"><div class="header-anchor-widget" id="§{text[:12].lower().replace(" ", "-")}"><button>Link</button></div></div></h{level}>'


@skin("substack")
def substack(a: Article, rng) -> str:
    pub = a.m("site", "The Long Towpath")
    body = SubstackBody(a, {
        "signup": lambda: (f'<div class="subscription-widget-wrap-editor" data-attrs="{{&quot;url&quot;:&quot;{base(a)}/subscribe?&quot;,&quot;text&quot;:&quot;Subscribe&quot;}}" data-component-name="SubscribeWidgetToDOM"><div class="subscription-widget show-subscribe"><div class="preamble"><p class="cta-caption">{esc(pub)} is a reader-supported publication. To receive new posts and support my work, consider becoming a free or paid subscriber.</p></div>'
                           '<form class="subscription-widget-subscribe"><input type="email" class="email-input" name="email" placeholder="Type your email…" tabindex="-1"><input type="submit" class="button primary" value="Subscribe"></form></div></div>'),
        "related": lambda: ('<div class="digest-post-embed" data-attrs="{}" data-component-name="DigestPostEmbed"><div class="pencraft pc-display-flex"><a class="embedded-post" href="/p/winter-stoppages"><div class="embedded-post-title">Winter stoppages and the men who drained the pounds</div>'
                            '<div class="embedded-post-body">Every January the water came out, and for three weeks the canal became a long muddy trench full of surprises.</div><div class="embedded-post-cta-wrapper"><span class="embedded-post-cta">Read more</span></div></a></div></div>'),
    }).render()
    paywall = ""
    if a.m("cut") == "paywall":
        paywall = (f'<div class="paywall"><div class="paywall-content"><h2 class="paywall-title">Keep reading with a 7-day free trial</h2><p class="paywall-cta">Subscribe to {esc(pub)} to keep reading this post and get 7 days of free access to the full post archives.</p>'
                   '<a class="button primary" href="/subscribe?simple=true&amp;next=/p/x&amp;utm_source=paywall-free-trial">Start trial</a><div class="paywall-login">Already a paid subscriber? <a href="/account/login">Sign in</a></div></div></div>')
    comments = "".join(f'<div class="comment"><div class="comment-content"><div class="comment-meta"><a class="comment-user-name" href="/profile/{i}">{esc(c.author)}</a><a class="comment-date" href="#comment-{i}">{esc(c.get(1))}</a></div><div class="comment-body"><div class="markup">{"".join(f"<p>{esc(p)}</p>" for p in c.paras)}</div></div><div class="comment-actions"><button>Like ({rng.randint(0, 30)})</button><button>Reply</button><button>Share</button></div></div></div>' for i, c in enumerate(a.comments))
    return f"""<!DOCTYPE html>
<html lang="en"><head>{decl(a)}<meta name="viewport" content="width=device-width, initial-scale=1, maximum-scale=1, user-scalable=0, viewport-fit=cover">
<title>{esc(a.title)} - by {esc(a.m('author'))}</title><meta name="description" content="{attr(a.m('deck'))}">
<link rel="stylesheet" type="text/css" href="https://substackcdn.example.com/bundle/theme/main.e4a3.css"><style>{stylesheet(rng, 380, 'pc-')}</style>{json_ld(a, pub)}</head>
<body class="pc-root"><div id="entry"><div id="main" class="main typography use-theme-bg">
<div class="main-menu-content"><div class="topbar-content"><a href="/" class="navbar-title-link">{esc(pub)}</a><div class="navbar-buttons"><button class="button primary subscribe-btn">Subscribe</button><a href="/account/login" class="button">Sign in</a></div></div>
<div class="topbar-spacer"></div><div class="navbar-tabs">{nav(['Home', 'Notes', 'Archive', 'About'], '', 'pencraft tabs')}</div></div>
<div class="single-post-container"><div class="container"><div class="single-post"><div class="post-header" role="region" aria-label="Post header">
<h1 dir="auto" class="post-title published title-X77sOw">{esc(a.title)}</h1><h3 dir="auto" class="subtitle">{esc(a.m('deck'))}</h3>
<div class="pencraft byline-wrapper"><div class="profile-hover-card-target"><a href="/@author">{esc(a.m('author'))}</a></div><div class="pencraft pc-reset">{us_date(a)}</div></div>
<div class="post-ufi style-large"><a class="post-ufi-button like-button-container">{rng.randint(40, 900)}</a><a class="post-ufi-button post-ufi-comment-button">{len(a.comments)}</a><a class="post-ufi-button">Share</a></div></div>
<div class="available-content"><div dir="auto" class="body markup">{body}</div></div>
{paywall}
<div class="visibility-check"></div><div class="post-footer use-separators"><div class="post-ufi"><button>Share</button></div></div>
<div class="subscribe-footer"><p>Ready for more?</p><form><input type="email" placeholder="Type your email…"><input type="submit" value="Subscribe"></form></div>
</div></div></div>
<div class="comments-section"><div class="container"><h4 class="comments-heading">Discussion about this post</h4><div class="comment-list-container"><div class="comment-list">{comments}</div></div></div></div>
<div class="footer-wrap"><div class="footer"><div class="footer-copyright">© 2024 {esc(a.m('author'))}</div><div class="footer-terms"><a href="/privacy">Privacy</a> ∙ <a href="/tos">Terms</a> ∙ <a href="/collection-notice">Collection notice</a></div><div class="footer-substack"><a href="https://substack.com/signup">Start Writing</a><a href="https://substack.com/app">Get the app</a></div><p>Substack is the home for great culture</p></div></div>
</div></div><script>window._preloads = JSON.parse("{{\\"isEU\\":true,\\"language\\":\\"en\\"}}")</script>{bundle(rng, 65000)}</body></html>"""


# --- recipe blog ------------------------------------------------------------------------

_UNITS = {"cup", "cups", "tablespoon", "tablespoons", "teaspoon", "teaspoons", "g", "kg", "ml", "l", "tbsp", "tsp", "large", "medium", "small", "pinch", "cloves", "clove", "oz", "lb"}


class RecipeBody(Body):
    def fig(self, name, text):
        return (f'<div class="wp-block-image"><figure class="aligncenter size-full"><img decoding="async" src="/wp-content/uploads/2023/10/{name}" data-pin-description="{attr(text)}" alt=""><figcaption class="wp-element-caption">{self.inl(text)}</figcaption></figure>'
                f'<div class="pin-it-wrap"><a class="pin-it" href="https://pinterest.com/pin/create/button/">Save</a></div></div>')

    def heading(self, level, text):
        return f'<h{level} class="wp-block-heading" id="h-{text[:20].lower().replace(" ", "-")}">{self.inl(text)}</h{level}>'


class CardBody(Body):
    def heading(self, level, text):
        return f'<h3 class="wprm-recipe-header wprm-recipe-{text.lower()}-header wprm-block-text-uppercase">{self.inl(text)}</h3>'

    def ul(self, items):
        lis = []
        for i, item in enumerate(items):
            words = item.split(" ")
            amount, unit, rest = "", "", words
            if words and re.match(r"^[\d½¼¾⅓/.-]+$", words[0]):
                amount, rest = words[0], words[1:]
                if rest and rest[0] in _UNITS:
                    unit, rest = rest[0], rest[1:]
            parts = [f'<span class="wprm-recipe-ingredient-amount">{esc(amount)}</span>' if amount else "",
                     f'<span class="wprm-recipe-ingredient-unit">{esc(unit)}</span>' if unit else "",
                     f'<span class="wprm-recipe-ingredient-name">{self.inl(" ".join(rest))}</span>']
            lis.append(f'<li class="wprm-recipe-ingredient" style="list-style-type: none;" data-uid="{i}"><span class="wprm-checkbox-container"><input type="checkbox" id="wprm-checkbox-{i}" class="wprm-checkbox" aria-label="&nbsp;"><label for="wprm-checkbox-{i}" class="wprm-checkbox-label"><span class="sr-only screen-reader-text wprm-screen-reader-text">▢ </span></label></span>{" ".join(p for p in parts if p)}</li>')
        return f'<div class="wprm-recipe-ingredient-group"><ul class="wprm-recipe-ingredients">{"".join(lis)}</ul></div>'

    def ol(self, items):
        return ('<div class="wprm-recipe-instruction-group"><ul class="wprm-recipe-instructions">' + "".join(
            f'<li id="wprm-recipe-instruction-{i}" class="wprm-recipe-instruction" style="list-style-type: decimal;"><div class="wprm-recipe-instruction-text" style="margin-bottom: 5px;">{self.inl(t)}</div></li>'
            for i, t in enumerate(items)) + "</ul></div>")

    def para(self, text):
        return f'<div class="wprm-recipe-notes-container wprm-block-text-normal"><div class="wprm-recipe-notes"><span style="display: block;">{self.inl(text)}</span></div></div>'


@skin("recipe")
def recipe(a: Article, rng) -> str:
    site = a.m("site", "Butter & Bramble")
    idx = next((i for i, b in enumerate(a.blocks) if b.kind == "marker" and b.name == "recipe"), None)
    if idx is None:
        raise ValueError(f"{a.slug}: the recipe skin needs a [recipe] marker where the recipe card starts")
    ads = iter(range(1, 30))

    def ad():
        n = next(ads)
        return f'<div class="adthrive-ad adthrive-content adthrive-content-{n} adthrive-ad-cls" data-google-query-id="CK{rng.randint(10000, 99999)}" style="min-height: 250px;"><div id="cls-video-container-{n}"></div><span class="adthrive-ad-label">Advertisement</span></div>'

    story_art = Article(a.slug, a.meta, a.blocks[:idx], [])
    card_art = Article(a.slug, a.meta, a.blocks[idx + 1:], [])
    story = RecipeBody(story_art, {"ad": ad, "signup": lambda: newsletter(rng, 4, "wp-block-group subscribe-box")}).render()
    card = CardBody(card_art, {}).render()
    comments = "".join(f'<li class="comment"><article class="comment-body"><footer class="comment-meta"><b class="fn">{esc(c.author)}</b><time>{esc(c.get(1))}</time></footer>'
                       f'{f"""<img class="wprm-comment-rating" alt="{c.get(2)} stars" width="80" height="16">""" if c.get(2) else ""}<div class="comment-content">{"".join(f"<p>{esc(p)}</p>" for p in c.paras)}</div><div class="reply"><a class="comment-reply-link" href="#respond">Reply</a></div></article></li>' for c in a.comments)
    return f"""<!DOCTYPE html>
<html lang="en-US"><head>{decl(a)}<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(a.title)} - {esc(site)}</title><meta name="description" content="{attr(a.m('deck'))}">
<style id="wprm-style-inline-css">{stylesheet(rng, 260, 'wprm-')}</style><style>{stylesheet(rng, 200, 'feast-')}</style>
{json_ld(a, site)}<script type="application/ld+json">{{"@context":"https://schema.org/","@type":"Recipe","name":"{esc(a.m('recipe_name', a.title))}","recipeYield":["{a.m('serves', '4')}"],"prepTime":"PT20M","cookTime":"PT45M"}}</script>
<script data-no-optimize="1" data-cfasync="false">window.adthriveCLS = {{enabledLocations: ['Content', 'Recipe'], siteAds: {{'siteId': '5f1e'}}}};</script></head>
<body class="post-template-default single single-post feast-plugin">
<div class="site-container"><ul class="genesis-skip-link"><li><a href="#genesis-content" class="screen-reader-shortcut">Skip to primary navigation</a></li></ul>
<header class="site-header"><div class="wrap"><div class="title-area"><p class="site-title"><a href="/">{esc(site)}</a></p></div>
<nav class="nav-primary" aria-label="Main"><ul id="menu-primary" class="menu genesis-nav-menu">{''.join(f'<li class="menu-item"><a href="/category/{x.lower().replace(" ", "-")}/"><span>{x}</span></a></li>' for x in ['Recipes', 'Breakfast', 'Soups', 'Baking', 'Preserves', 'Dinner', 'Holidays', 'About', 'Shop'])}</ul></nav></div></header>
{cookie_banner(rng, 4)}
<div class="site-inner"><div class="content-sidebar-wrap"><main class="content" id="genesis-content">
<div class="breadcrumb"><span><span><a href="/">Home</a></span> » <span><a href="/category/recipes/">Recipes</a></span> » <span class="breadcrumb_last" aria-current="page">{esc(a.title)}</span></span></div>
<article class="post type-post status-publish entry" aria-label="{attr(a.title)}"><header class="entry-header"><h1 class="entry-title">{esc(a.title)}</h1>
<p class="entry-meta">By <span class="entry-author"><a href="/about/" class="entry-author-link"><span class="entry-author-name">{esc(a.m('author'))}</span></a></span> · Published: <time class="entry-time">{us_date(a)}</time> · <a href="#comments" class="entry-comments-link">{len(a.comments)} Comments</a></p></header>
<div class="entry-content">
<div class="wprm-recipe-snippet wprm-block-text-normal"><a href="#recipe" data-recipe="{rng.randint(1000, 9999)}" class="wprm-recipe-jump wprm-recipe-link wprm-jump-to-recipe-shortcode">Jump to Recipe</a> <a href="/wprm_print/x" class="wprm-recipe-print wprm-recipe-link">Print Recipe</a></div>
<p class="disclosure"><em>This post may contain affiliate links. As an Amazon Associate I earn from qualifying purchases. Please read our disclosure policy.</em></p>
{story}
<div id="recipe"></div><div id="wprm-recipe-container-{rng.randint(1000, 9999)}" class="wprm-recipe-container" data-recipe-id="4411"><div class="wprm-recipe wprm-recipe-template-custom">
<div class="wprm-container-float-right"><img src="/wp-content/uploads/2023/10/card.jpg" alt=""></div>
<h2 class="wprm-recipe-name wprm-block-text-bold">{esc(a.m('recipe_name', a.title))}</h2>
<div class="wprm-recipe-rating wprm-recipe-rating-inline"><svg></svg><div class="wprm-recipe-rating-details">{a.m('rating', '4.9')} from {rng.randint(20, 400)} votes</div></div>
<div class="wprm-recipe-buttons"><a href="/wprm_print/x" class="wprm-recipe-print wprm-recipe-link">Print Recipe</a> <a href="https://www.pinterest.com/pin/create/bookmarklet/" class="wprm-recipe-pin">Pin Recipe</a> <a href="#" class="wprm-recipe-add-to-collection">Save to Collection</a></div>
<div class="wprm-recipe-meta-container"><div class="wprm-recipe-block-container wprm-recipe-time-container"><span class="wprm-recipe-details-label">Prep Time</span> <span class="wprm-recipe-details">{a.m('prep', '20 minutes')}</span></div><div class="wprm-recipe-block-container"><span class="wprm-recipe-details-label">Cook Time</span> <span class="wprm-recipe-details">{a.m('cook', '45 minutes')}</span></div><div class="wprm-recipe-block-container"><span class="wprm-recipe-details-label">Servings</span> <span class="wprm-recipe-servings">{a.m('serves', '4')}</span></div></div>
{card}
<h3 class="wprm-recipe-header wprm-recipe-nutrition-header">Nutrition</h3><div class="wprm-nutrition-label-container wprm-nutrition-label-container-simple"><span class="wprm-nutrition-label-text-nutrition-container">Calories: {rng.randint(180, 600)}kcal</span> | <span>Carbohydrates: {rng.randint(10, 80)}g</span> | <span>Protein: {rng.randint(3, 30)}g</span> | <span>Fat: {rng.randint(4, 30)}g</span></div>
<div class="wprm-call-to-action wprm-call-to-action-simple"><span class="wprm-call-to-action-header">Tried this recipe?</span><span class="wprm-call-to-action-text">Mention <a href="https://www.instagram.com/butterandbramble">@butterandbramble</a> or tag #butterandbramble!</span></div>
</div></div>
</div>
<div class="author-box"><img src="/wp-content/uploads/author.jpg" alt=""><h4>Hi, I'm {esc(a.m('author').split()[0])}!</h4><p>{esc(a.m('bio'))}</p><a href="/about/">More about me →</a></div>
</article>
<div class="related-posts"><h3>You may also like</h3>{teaser_list(pick(FOOD_TEASERS, 4, rng), '', 'More recipes', 'feast-category-index', 'h4')}</div>
<div id="comments" class="entry-comments"><h3>{len(a.comments)} Comments</h3><ol class="comment-list">{comments}</ol></div>
</main>
<aside class="sidebar sidebar-primary widget-area" role="complementary"><section class="widget"><div class="widget-wrap"><h3 class="widgettitle">Welcome!</h3><p>{esc(a.m('about'))}</p></div></section>
{newsletter(rng, 4, 'widget enews')}{teaser_list(pick(FOOD_TEASERS, 4, rng), '', 'Popular recipes', 'widget featured-content', 'h3', False)}</aside></div></div>
<footer class="site-footer"><p>Copyright © 2024 {esc(site)} · All rights reserved · <a href="/privacy-policy/">Privacy Policy</a> · <a href="/accessibility/">Accessibility</a></p></footer></div>
<div id="adthrive-sticky-footer" class="adthrive-footer"><span>Advertisement</span></div>{bundle(rng, 60000)}</body></html>"""


# --- Blogger ----------------------------------------------------------------------------

class BloggerBody(Body):
    """Blogger's post editor: text runs in the post-body div, <br /> line breaks, images in
    separator divs, captions in tr-caption tables."""
    def para(self, text):
        return f"{self.inl(text)}<br /><br />"

    def heading(self, level, text):
        return f"<h3>{self.inl(text)}</h3>"

    def fig(self, name, text):
        return (f'<table align="center" cellpadding="0" cellspacing="0" class="tr-caption-container" style="margin-left: auto; margin-right: auto;"><tbody><tr><td style="text-align: center;">'
                f'<a href="https://blogger.googleusercontent.com/img/b/R29v/{name}" style="margin-left: auto; margin-right: auto;"><img border="0" data-original-height="1200" data-original-width="1600" height="300" src="https://blogger.googleusercontent.com/img/b/R29v/s400/{name}" width="400" /></a></td></tr>'
                f'<tr><td class="tr-caption" style="text-align: center;">{self.inl(text)}</td></tr></tbody></table>')

    def ul(self, items):
        return "<ul>" + "".join(f"<li>{self.inl(i)}</li>" for i in items) + "</ul>"


@skin("blogger")
def blogger(a: Article, rng) -> str:
    body = BloggerBody(a).render()
    comments = "".join(f"<li class='comment' id='c{rng.randint(10**9, 10**10)}'><div class='avatar-image-container'><img src='//resources.blogblog.com/img/blank.gif' width='35' height='35'/></div><div class='comment-block'><div class='comment-header'><cite class='user'>{esc(c.author)}</cite><span class='icon user'></span><span class='datetime secondary-text'><a rel='nofollow' href='#'>{esc(c.get(1))}</a></span></div><p class='comment-content'>{'<br /><br />'.join(esc(p) for p in c.paras)}</p><span class='comment-actions secondary-text'><a class='comment-reply' target='_self'>Reply</a><span class='item-control blog-admin pid-1'><a target='_self' href='#'>Delete</a></span></span></div></li>" for c in a.comments)
    return f"""<!DOCTYPE html>
<html class='v2' dir='ltr' xmlns='http://www.w3.org/1999/xhtml' xmlns:b='http://www.google.com/2005/gml/b' xmlns:data='http://www.google.com/2005/gml/data' xmlns:expr='http://www.google.com/2005/gml/expr'>
<head>{decl(a)}
<meta content='width=1100' name='viewport'/><title>{esc(a.m('site', 'Two Rucksacks and a Rail Pass'))}: {esc(a.title)}</title>
<link href='https://www.blogger.com/static/v1/widgets/2975350028-css_bundle_v2.css' rel='stylesheet' type='text/css'/>
<style id='page-skin-1' type='text/css'><!--
body {{font: normal normal 14px Georgia, Utopia, 'Palatino Linotype', Palatino, serif; color: #333333;}}
{stylesheet(rng, 160, 'bl')}
--></style></head>
<body class='loading'>
<div class='navbar no-items section' id='navbar' name='Navbar'></div>
<div class='body-fauxcolumns'><div class='fauxcolumn-outer body-fauxcolumn-outer'></div></div>
<div class='content'><div class='content-outer'><header><div class='header-outer'><div class='header section' id='header'><div class='widget Header' data-version='1' id='Header1'><div id='header-inner'><div class='titlewrapper'><h1 class='title'><a href='/'>{esc(a.m('site', 'Two Rucksacks and a Rail Pass'))}</a></h1></div><div class='descriptionwrapper'><p class='description'><span>{esc(a.m('tagline'))}</span></p></div></div></div></div></div></header>
<div class='tabs-outer'><div class='tabs section' id='crosscol'><div class='widget PageList' id='PageList1'><div class='widget-content'><ul>{''.join(f"<li><a href='/p/{x.lower()}.html'>{x}</a></li>" for x in ['Home', 'Itineraries', 'Budget', 'Packing', 'About us', 'Contact'])}</ul></div></div></div></div>
<div class='main-outer'><div class='columns fauxcolumns'><div class='columns-inner'><div class='column-center-outer'><div class='column-center-inner'>
<div class='main section' id='main' name='Main'><div class='widget Blog' data-version='1' id='Blog1'><div class='blog-posts hfeed'>
<div class="date-outer"><h2 class='date-header'><span>{long_date(a)}</span></h2><div class="date-posts"><div class='post-outer'>
<div class='post hentry uncustomized-post-template' itemprop='blogPost' itemscope='itemscope' itemtype='http://schema.org/BlogPosting'>
<a name='{rng.randint(10**9, 10**10)}'></a><h3 class='post-title entry-title' itemprop='name'>{esc(a.title)}</h3>
<div class='post-header'><div class='post-header-line-1'></div></div>
<div class='post-body entry-content' id='post-body-{rng.randint(10**9, 10**10)}' itemprop='description articleBody'>
{body}
</div>
<div class='post-footer'><div class='post-footer-line post-footer-line-1'><span class='post-author vcard'>Posted by <span class='fn' itemprop='author'>{esc(a.m('author'))}</span></span> <span class='post-timestamp'>at <a class='timestamp-link' href='{a.m('url')}' rel='bookmark'><abbr class='published'>10:42</abbr></a></span> <span class='post-comment-link'></span></div>
<div class='post-share-buttons goog-inline-block'><a class='goog-inline-block share-button sb-email' href='#' title='Email This'><span class='share-button-link-text'>Email This</span></a><a class='goog-inline-block share-button sb-blog' title='BlogThis!'><span class='share-button-link-text'>BlogThis!</span></a><a class='goog-inline-block share-button sb-twitter' title='Share to X'><span class='share-button-link-text'>Share to X</span></a><a class='goog-inline-block share-button sb-facebook' title='Share to Facebook'><span class='share-button-link-text'>Share to Facebook</span></a></div>
<div class='post-footer-line post-footer-line-2'><span class='post-labels'>Labels: {', '.join(f"<a href='/search/label/{t}' rel='tag'>{esc(t)}</a>" for t in a.tags)}</span></div></div></div>
<div class='comments' id='comments'><a name='comments'></a><h4>{len(a.comments)} comments:</h4><div class='comments-content'><div id='comment-holder'><div class='comment-thread toplevel-thread'><ol id='top-ra'>{comments}</ol></div></div></div>
<p class='comment-footer'><a href='https://www.blogger.com/comment/fullpage/post/x' onclick=''>Post a Comment</a></p></div>
</div></div></div></div>
<div class='blog-pager' id='blog-pager'><span id='blog-pager-newer-link'><a class='blog-pager-newer-link' href='/newer.html' title='Newer Post'>Newer Post</a></span><span id='blog-pager-older-link'><a class='blog-pager-older-link' href='/older.html' title='Older Post'>Older Post</a></span><a class='home-link' href='/'>Home</a></div>
<div class='post-feeds'><div class='feed-links'>Subscribe to: <a class='feed-link' href='/feeds/posts/default' target='_blank' type='application/atom+xml'>Post Comments (Atom)</a></div></div></div></div></div></div>
<div class='column-right-outer'><div class='column-right-inner'><aside><div class='sidebar section' id='sidebar-right-1'>
<div class='widget Profile' id='Profile1'><h2>About Me</h2><div class='widget-content'><a href='/profile'><img alt='My photo' height='80' src='//blogger.googleusercontent.com/img/profile.jpg' width='80'/></a><dl class='profile-datablock'><dt class='profile-data'><a class='profile-name-link g-profile' href='/profile' rel='author'>{esc(a.m('author'))}</a></dt><dd class='profile-textblock'>{esc(a.m('bio'))}</dd></dl><a class='profile-link' href='/profile' rel='author'>View my complete profile</a></div></div>
<div class='widget PopularPosts' id='PopularPosts1'><h2>Popular Posts</h2><div class='widget-content popular-posts'><ul>{''.join(f"<li><div class='item-content'><div class='item-title'><a href='/{i}.html'>{esc(h)}</a></div><div class='item-snippet'>{esc(t)}</div></div></li>" for i, (h, t) in enumerate(pick(LIFE_TEASERS, 4, rng)))}</ul></div></div>
<div class='widget BlogArchive' id='BlogArchive1'><h2>Blog Archive</h2><div class='widget-content'><div id='ArchiveList'><ul class='hierarchy'><li class='archivedate expanded'><a class='toggle'>▼</a><a class='post-count-link' href='/2023/'>2023</a> <span class='post-count' dir='ltr'>(14)</span><ul class='hierarchy'><li class='archivedate'><a href='/2023/09/'>September</a> (3)</li><li class='archivedate'><a href='/2023/08/'>August</a> (5)</li><li class='archivedate'><a href='/2023/07/'>July</a> (6)</li></ul></li><li class='archivedate collapsed'><a class='post-count-link' href='/2022/'>2022</a> (21)</li></ul></div></div></div>
<div class='widget Followers' id='Followers1'><h2 class='title'>Followers</h2><div class='widget-content'><div id='Followers1-wrapper'><div style='margin-right:2px;'><div><span>{rng.randint(40, 400)} followers</span></div></div></div></div></div>
</div></aside></div></div></div></div></div>
<footer><div class='footer-outer'><div class='foot section' id='footer-1'><div class='widget Attribution' id='Attribution1'><div class='widget-content' style='text-align: center;'>Simple theme. Powered by <a href='https://www.blogger.com' target='_blank'>Blogger</a>.</div></div></div></div></footer>
</div></div>
<script type='text/javascript'>window.___gcfg = {{'lang': 'en-GB'}};</script>{bundle(rng, 20000)}
</body></html>"""


# --- minimal static-site blog -----------------------------------------------------------

@skin("hugo")
def hugo(a: Article, rng) -> str:
    body = Body(a).render()
    return f"""<!DOCTYPE html>
<html><head>{decl(a)}
<title>{esc(a.title)} · {esc(a.m('site', 'valve & solder'))}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Hugo 0.121.1">
<link rel="alternate" type="application/rss+xml" href="/index.xml" title="{attr(a.m('site', 'valve & solder'))}">
<style>body{{max-width:42em;margin:2em auto;font:17px/1.55 Charter,serif;padding:0 1em}} pre{{overflow:auto;background:#f4f1ea;padding:.6em}}</style></head>
<body><header><a href="/" class="home">~/{esc(a.m('site', 'valve & solder'))}</a> <span class="menu"><a href="/posts/">posts</a> · <a href="/projects/">projects</a> · <a href="/now/">now</a> · <a href="/about/">about</a> · <a href="/index.xml">rss</a></span></header>
<main><h1 class="title">{esc(a.title)}</h1><p class="meta"><time datetime="{a.m('date')}">{a.m('date')}</time> · {a.m('readtime', '5')} minute read · {' '.join(f'<a href="/tags/{t}/">#{esc(t)}</a>' for t in a.tags)}</p>
<div class="post-content">
{body}
</div>
<nav class="post-nav"><a class="prev" href="/posts/prev/">← {esc(pick(LIFE_TEASERS, 1, rng)[0][0])}</a><a class="next" href="/posts/next/">{esc(pick(LIFE_TEASERS, 1, rng)[0][0])} →</a></nav>
<section class="webmentions"><h2>Webmentions</h2><p>{rng.randint(2, 30)} likes, {rng.randint(0, 9)} reposts.</p><ul>{''.join(f'<li><a href="#">{esc(c.author)}</a>: {esc(" ".join(c.paras))}</li>' for c in a.comments)}</ul>
<p>Replied on your own site? Send a webmention and it will show up here after a while.</p></section></main>
<footer><p>© 2019–2024 {esc(a.m('author'))} · Text is CC BY-SA 4.0 · Built with Hugo, hosted on a Raspberry Pi in a cupboard.</p></footer>
</body></html>"""


# --- Japanese blog ----------------------------------------------------------------------

@skin("jpblog")
def jpblog(a: Article, rng) -> str:
    body = Body(a, {
        "ad": lambda: '<div class="sponsored-link"><p class="sponsored-label">スポンサーリンク</p><div class="adsbygoogle" data-ad-slot="1234"></div></div>',
    }).render()
    comments = "".join(f'<div class="comment-box"><p class="comment-user">{esc(c.author)} <span class="comment-date">{esc(c.get(1))}</span></p><p class="comment-text">{esc(" ".join(c.paras))}</p></div>' for c in a.comments)
    return f"""<!DOCTYPE html>
<html lang="ja"><head>{decl(a)}<title>{esc(a.title)} - {esc(a.m('site'))}</title>
<meta name="viewport" content="width=device-width, initial-scale=1.0"><meta name="description" content="{attr(a.m('deck'))}">
<style>{stylesheet(rng, 140, 'hb-')}</style>{json_ld(a, a.m('site'))}</head>
<body class="page-entry header-image-enable">
<div id="globalheader-container"><div id="globalheader"><a href="/" class="logo">{esc(a.m('site'))}</a><ul class="gh-menu"><li><a href="/login">ログイン</a></li><li><a href="/register">無料でブログを始める</a></li></ul></div></div>
<div id="container"><div id="container-inner"><header id="blog-title"><div id="blog-title-inner"><h1 id="title"><a href="/">{esc(a.m('site'))}</a></h1><h2 id="blog-description">{esc(a.m('tagline'))}</h2></div></header>
<div id="top-editarea"><ul class="menu"><li><a href="/">ホーム</a></li><li><a href="/archive">記事一覧</a></li><li><a href="/about">プロフィール</a></li><li><a href="/contact">お問い合わせ</a></li></ul></div>
<div id="content"><div id="content-inner"><div id="wrapper"><div id="main"><div id="main-inner">
<article class="entry hentry" data-uuid="{rng.randint(10**15, 10**16)}"><div class="entry-inner"><header class="entry-header"><div class="date entry-date first"><a href="/archive/{a.m('date').replace('-', '/')}"><time datetime="{a.m('date')}">{a.m('date')}</time></a></div>
<h1 class="entry-title"><a href="{a.m('url')}" class="entry-title-link bookmark">{esc(a.title)}</a></h1>
<div class="entry-categories categories">{''.join(f'<a href="/archive/category/{t}" class="entry-category-link">{esc(t)}</a>' for t in a.tags)}</div></header>
<div class="entry-content hatenablog-entry">{body}</div>
<footer class="entry-footer"><div class="entry-tags-wrapper"></div><p class="entry-footer-section">{esc(a.m('author'))} <span class="entry-footer-time">{a.m('date')} 21:14</span></p>
<div class="social-buttons"><a class="hatena-bookmark-button">はてなブックマークに追加</a><a class="share-x">ポスト</a><a class="share-fb">シェア</a><a class="share-line">LINEで送る</a></div>
<div class="related-entries"><h3>関連記事</h3><ul><li><a href="/entry/1">週末の自家焙煎、温度計を買い替えた話</a><p>温度のばらつきが減って、深煎りの仕上がりが安定するようになった。</p></li><li><a href="/entry/2">古い手回しミルの刃を研いでみた</a><p>思ったより簡単だったが、刃の向きを間違えて一度やり直した。</p></li><li><a href="/entry/3">近所の喫茶店が閉店するので通った三か月</a><p>店主に教わったネルドリップの淹れ方を記録しておく。</p></li></ul></div>
<div class="comment-box-container"><h3>コメント</h3>{comments}<p><a href="/comment">コメントを書く</a></p></div></footer></div></article>
</div></div></div>
<aside id="box2"><div id="box2-inner"><div class="hatena-module hatena-module-profile"><div class="hatena-module-title">プロフィール</div><div class="hatena-module-body"><p>{esc(a.m('bio'))}</p><a href="/about">読者になる</a></div></div>
<div class="hatena-module hatena-module-recent-entries"><div class="hatena-module-title">最新記事</div><ul><li><a href="/entry/4">焙煎記録ノートの付け方を見直した</a></li><li><a href="/entry/5">浅煎りエチオピアの飲み比べ</a></li><li><a href="/entry/6">ベランダで生豆を保管するのはやめた方がいい</a></li></ul></div>
<div class="hatena-module hatena-module-archive"><div class="hatena-module-title">月別アーカイブ</div><ul><li>2024 (18)</li><li>2023 (31)</li><li>2022 (27)</li></ul></div></div></aside>
</div></div></div>
<footer id="footer"><p class="footer-copyright">Powered by Hatena Blog | <a href="/report">ブログを報告する</a></p></footer></div>
{analytics(rng, 'jp')}</body></html>"""
