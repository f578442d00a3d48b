"""Forum skins: a Discourse topic (the crawler view a plain HTTP client gets), a phpBB
(prosilver) thread, a Stack Overflow-like Q&A page. The article's body is the opening post
(the question); its comments are the replies (answers). Only the opening post is gold."""
from __future__ import annotations

import re

from articledoc import Article, attr, esc, plain
from body import Body, highlight
from chrome import analytics, bundle, cookie_banner, stylesheet
from pools import FORUM_TOPICS, pick
from skinkit import decl, long_date, skin, us_date


def _first_sentence(a: Article) -> str:
    para = next(b.text for b in a.blocks if b.kind == "para")
    return re.split(r"(?<=[.?!])\s", plain(para))[0]


# --- Discourse --------------------------------------------------------------------------

class CookedBody(Body):
    scheme = "hljs"

    def code(self, text, lang):
        return f'<pre><code class="lang-{lang or "plaintext"}">{highlight(text, lang, "hljs")}</code></pre>'


@skin("discourse")
def discourse(a: Article, rng) -> str:
    op = CookedBody(a).render()
    forum = a.m("site", "Homelab Commons")

    def post(n, author, when, cooked, likes):
        return (f'<div id="post_{n}" itemprop="{"mainEntity" if n == 1 else "comment"}" itemscope itemtype="http://schema.org/{"DiscussionForumPosting" if n == 1 else "Comment"}" class="topic-body crawler-post">'
                f'<div class="crawler-post-meta"><span class="creator" itemprop="author" itemscope itemtype="http://schema.org/Person"><a itemprop="url" rel="nofollow" href="/u/{author.split()[0].lower()}"><span itemprop="name">{esc(author)}</span></a></span>'
                f'<link itemprop="mainEntityOfPage" href="{a.m("url")}"><span class="crawler-post-infos"><time itemprop="datePublished" datetime="{a.m("date")}T19:04:11Z" class="post-time">{esc(when)}</time><meta itemprop="position" content="{n}"></span></div>'
                f'<div class="post" itemprop="text">{cooked}</div>'
                f'<div itemprop="interactionStatistic" itemscope itemtype="http://schema.org/InteractionCounter"><meta itemprop="interactionType" content="http://schema.org/LikeAction"><meta itemprop="userInteractionCount" content="{likes}"><span class="post-likes">{likes} Likes</span></div></div>')

    posts = [post(1, a.m("author"), us_date(a), op, rng.randint(0, 12))]
    for i, c in enumerate(a.comments):
        cooked = "".join(f"<p>{esc(p)}</p>" for p in c.paras)
        if c.get(2) == "quote":
            cooked = (f'<aside class="quote no-group" data-username="{attr(a.m("author"))}" data-post="1" data-topic="{rng.randint(1000, 9999)}"><div class="title"><div class="quote-controls"></div>{esc(a.m("author"))}:</div>'
                      f'<blockquote><p>{esc(_first_sentence(a))}</p></blockquote></aside>') + cooked
        posts.append(post(i + 2, c.author, c.get(1), cooked, rng.randint(0, 8)))
    related = "".join(f'<tr><td><a href="/t/{i}">{esc(t)}</a><div class="category"><span class="badge-category__name">{esc(a.m("category", "Help"))}</span></div></td><td class="replies">{rng.randint(1, 40)}</td><td class="views">{rng.randint(80, 4000)}</td><td class="activity">{rng.choice(["Jan", "Feb", "Mar", "Apr"])} {rng.randint(1, 28)}</td></tr>' for i, t in enumerate(pick(FORUM_TOPICS, 5, rng)))
    return f"""<!DOCTYPE html>
<html lang="en"><head>{decl(a)}<title>{esc(a.title)} - {esc(a.m('category', 'Help'))} - {esc(forum)}</title>
<meta name="description" content="{attr(_first_sentence(a))}"><meta name="generator" content="Discourse 3.2.0 - https://github.com/discourse/discourse version 3.2.0">
<link rel="icon" type="image/png" href="/uploads/default/optimized/1X/favicon.png"><meta name="theme-color" media="all" content="#ffffff">
<meta name="viewport" content="width=device-width, initial-scale=1.0, minimum-scale=1.0, user-scalable=yes, viewport-fit=cover">
<link href="/stylesheets/color_definitions_light_2_3.css?__ws=forum" media="all" rel="stylesheet"><link href="/stylesheets/desktop_theme_3.css" media="all" rel="stylesheet"><style>{stylesheet(rng, 120, 'd-')}</style>
<script type="application/ld+json">{{"@context":"http://schema.org","@type":"WebSite","url":"https://{a.m('url').split('/')[2]}","potentialAction":{{"@type":"SearchAction","target":"https://{a.m('url').split('/')[2]}/search?q={{search_term_string}}","query-input":"required name=search_term_string"}}}}</script></head>
<body class="crawler "><header><a href="/">{esc(forum)}</a></header>
<div id="main-outlet" class="wrap" role="main"><div id="topic-title"><h1><a href="{a.m('url')}">{esc(a.title)}</a></h1>
<div class="topic-category" itemscope itemtype="http://schema.org/BreadcrumbList"><span itemprop="itemListElement" itemscope itemtype="http://schema.org/ListItem"><a href="/c/{a.m('category', 'help').lower()}/4" class="badge-wrapper bullet" itemprop="item"><span class='badge-category-bg' style='background-color: #0088CC'></span><span class='badge-category clear-badge'><span class='category-name' itemprop='name'>{esc(a.m('category', 'Help'))}</span></span></a><meta itemprop="position" content="1" /></span></div>
<div class="topic-tags">{''.join(f'<a href="/tag/{t}" class="discourse-tag simple">{esc(t)}</a>' for t in a.tags)}</div></div>
{''.join(posts)}
<div id="related-topics" class="more-topics__list" role="complementary" aria-labelledby="related-topics-title"><h3 id="related-topics-title" class="more-topics__list-title">Related topics</h3><div class="topic-list-container" itemscope itemtype="http://schema.org/ItemList"><meta itemprop="itemListOrder" content="http://schema.org/ItemListOrderDescending"><table class="topic-list"><thead><tr><th>Topic</th><th></th><th class="replies">Replies</th><th class="views">Views</th><th>Activity</th></tr></thead><tbody>{related}</tbody></table></div></div>
</div>
<footer class="container wrap"><nav class="crawler-nav"><ul><li itemscope itemtype="http://schema.org/SiteNavigationElement"><span itemprop="name"><a href="/" itemprop="url">Home </a></span></li><li itemscope itemtype="http://schema.org/SiteNavigationElement"><span itemprop="name"><a href="/categories" itemprop="url">Categories </a></span></li><li itemscope itemtype="http://schema.org/SiteNavigationElement"><span itemprop="name"><a href="/guidelines" itemprop="url">Guidelines </a></span></li><li itemscope itemtype="http://schema.org/SiteNavigationElement"><span itemprop="name"><a href="/tos" itemprop="url">Terms of Service </a></span></li><li itemscope itemtype="http://schema.org/SiteNavigationElement"><span itemprop="name"><a href="/privacy" itemprop="url">Privacy Policy </a></span></li></ul></nav></footer>
<div class="buorg"><div>Unfortunately, <a href="https://www.discourse.org/faq/#browser">your browser is unsupported</a>. Please <a href="https://browsehappy.com">switch to a supported browser</a> to view rich content, log in and reply.</div></div>
<p class="powered-by-link">Powered by <a href="https://www.discourse.org">Discourse</a>, best viewed with JavaScript enabled</p>
</body></html>"""


# --- phpBB (prosilver) ------------------------------------------------------------------

class PhpbbBody(Body):
    """phpBB's BBCode output: paragraphs as text with <br> line breaks, no <p>."""
    def para(self, text):
        return f"{self.inl(text)}<br>\n<br>"

    def heading(self, level, text):
        return f'<span style="font-size:150%;line-height:116%"><strong class="text-strong">{self.inl(text)}</strong></span><br>'

    def ul(self, items):
        return '<ul>' + "".join(f"<li>{self.inl(i)}</li>" for i in items) + "</ul>"

    def ol(self, items):
        return '<ol style="list-style-type:decimal">' + "".join(f"<li>{self.inl(i)}</li>" for i in items) + "</ol>"

    def code(self, text, lang):
        return f'<div class="codebox"><p>Code: <a href="#" onclick="selectCode(this); return false;">Select all</a></p><pre><code>{esc(text)}</code></pre></div>'


@skin("phpbb")
def phpbb(a: Article, rng) -> str:
    forum = a.m("site", "Classic Diesel Owners Forum")
    section = a.m("category", "Engine & Drivetrain")
    op = PhpbbBody(a).render()

    def post(n, pid, author, when, content, rank, posts, sig, bg):
        title = ("Re: " if n > 1 else "") + a.title
        first_cls = ' class="first"' if n == 1 else ""
        sig_html = f'<div id="sig{pid}" class="signature">{sig}</div>' if sig else ""
        return (f'<div id="p{pid}" class="post has-profile bg{bg}"><div class="inner"><dl class="postprofile" id="profile{pid}"><dt class="has-profile-rank has-avatar"><div class="avatar-container"><a href="./memberlist.php?mode=viewprofile&amp;u={pid % 977}" class="avatar"><img class="avatar" src="./download/file.php?avatar={pid % 977}.jpg" width="90" height="90" alt="User avatar"></a></div>'
                f'<a href="./memberlist.php?mode=viewprofile&amp;u={pid % 977}" class="username">{esc(author)}</a></dt><dd class="profile-rank">{rank}</dd><dd class="profile-posts"><strong>Posts:</strong> <a href="./search.php?author_id={pid % 977}&amp;sr=posts">{posts}</a></dd><dd class="profile-joined"><strong>Joined:</strong> {rng.choice(["Mon", "Tue", "Thu", "Sat"])} {rng.choice(["Jan", "Mar", "Jun", "Oct"])} {rng.randint(1, 28):02d}, {rng.randint(2009, 2021)} {rng.randint(1, 11)}:{rng.randint(10, 59)} am</dd><dd class="profile-custom-field profile-phpbb_location"><strong>Location:</strong> {rng.choice(["Yorkshire", "Ohio", "Ghent", "Tasmania", "Bavaria", "Cork"])}</dd></dl>'
                f'<div class="postbody"><div id="post_content{pid}"><h3{first_cls}><a href="#p{pid}">{esc(title)}</a></h3>'
                f'<ul class="post-buttons"><li><a href="./posting.php?mode=quote&amp;p={pid}" title="Reply with quote" class="button button-icon-only"><i class="icon fa-quote-left fa-fw" aria-hidden="true"></i><span class="sr-only">Quote</span></a></li></ul>'
                f'<p class="author"><a class="unread" href="./viewtopic.php?p={pid}#p{pid}" title="Post"><i class="icon fa-file fa-fw icon-lightgray icon-md" aria-hidden="true"></i><span class="sr-only">Post</span></a><span class="responsive-hide">by <strong><a href="./memberlist.php?mode=viewprofile&amp;u={pid % 977}" class="username">{esc(author)}</a></strong> &raquo; </span>{esc(when)}</p>'
                f'<div class="content">{content}</div>'
                f'{sig_html}</div></div><div class="back2top"><a href="#top" class="top" title="Top"><i class="icon fa-chevron-circle-up fa-fw icon-gray" aria-hidden="true"></i><span class="sr-only">Top</span></a></div></div></div><hr class="divider">')

    sigs = ["1987 estate, 412,000 miles and counting. 1994 saloon (project, forever).",
            "If it ain't broke, you haven't taken it apart yet.",
            "Workshop manuals scanned and shared: see the downloads section.", ""]
    posts = [post(1, 40000 + rng.randint(1, 9999), a.m("author"), a.m("posted", us_date(a) + " 9:14 pm"), op, "Regular member", rng.randint(40, 900), esc(a.m("sig", "")), 2)]
    for i, c in enumerate(a.comments):
        content = "<br>\n<br>".join(esc(p) for p in c.paras)
        if c.get(2) == "quote":
            content = f'<blockquote><div><cite><a href="./memberlist.php?mode=viewprofile">{esc(a.m("author"))}</a> wrote: <a href="./viewtopic.php?p=1#p1" data-post-id="1">↑</a></cite>{esc(_first_sentence(a))}</div></blockquote>' + content
        posts.append(post(i + 2, 40000 + rng.randint(10000, 99999), c.author, c.get(1), content, rng.choice(["Site Admin", "Moderator", "Member", "Senior member", "Newbie"]), rng.randint(3, 12000), esc(sigs[i % len(sigs)]), 1 + i % 2))
    jump = "".join(f'<li><a href="./viewforum.php?f={i}" class="jumpbox-sub-link"><span class="spacer"></span><span>&#8627; &nbsp;{esc(f)}</span></a></li>' for i, f in enumerate(["General Discussion", "Introduce Yourself", "Engine & Drivetrain", "Fuel Systems", "Electrics", "Bodywork & Rust", "Parts Wanted / For Sale", "Off Topic"]))
    return f"""<!DOCTYPE html>
<html dir="ltr" lang="en-gb"><head>{decl(a)}<meta http-equiv="X-UA-Compatible" content="IE=edge"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(a.title)} - {esc(forum)}</title><link href="./styles/prosilver/theme/stylesheet.css?assets_version=112" rel="stylesheet"><link href="./assets/css/font-awesome.min.css?assets_version=112" rel="stylesheet"><style>{stylesheet(rng, 90, 'pb-')}</style></head>
<body id="phpbb" class="nojs notouch section-viewtopic ltr "><div id="wrap" class="wrap"><a id="top" class="top-anchor" accesskey="t"></a>
<div id="page-header"><div class="headerbar" role="banner"><div class="inner"><div id="site-description" class="site-description"><a id="logo" class="logo" href="./index.php" title="Board index"><span class="site_logo"></span></a><h1>{esc(forum)}</h1><p>{esc(a.m('tagline', 'Keeping old diesels on the road since 2004'))}</p><p class="skiplink"><a href="#start_here">Skip to content</a></p></div>
<div id="search-box" class="search-box search-header" role="search"><form action="./search.php" method="get" id="search"><fieldset><input name="keywords" id="keywords" type="search" maxlength="128" title="Search for keywords" class="inputbox search tiny" size="20" value="" placeholder="Search…"><button class="button button-search" type="submit" title="Search"><i class="icon fa-search fa-fw" aria-hidden="true"></i><span class="sr-only">Search</span></button></fieldset></form></div></div></div>
<div class="navbar" role="navigation"><div class="inner"><ul id="nav-main" class="nav-main linklist" role="menubar"><li id="quick-links" class="quick-links dropdown-container responsive-menu" data-skip-responsive="true"><a href="#" class="dropdown-trigger"><i class="icon fa-bars fa-fw" aria-hidden="true"></i><span>Quick links</span></a><div class="dropdown"><ul class="dropdown-contents" role="menu"><li class="separator"></li><li><a href="./search.php?search_id=unanswered" role="menuitem"><i class="icon fa-file-o fa-fw icon-gray" aria-hidden="true"></i><span>Unanswered topics</span></a></li><li><a href="./search.php?search_id=active_topics" role="menuitem"><i class="icon fa-file-o fa-fw icon-blue" aria-hidden="true"></i><span>Active topics</span></a></li></ul></div></li>
<li data-skip-responsive="true"><a href="/app.php/help/faq" rel="help" title="Frequently Asked Questions" role="menuitem"><i class="icon fa-question-circle fa-fw" aria-hidden="true"></i><span>FAQ</span></a></li><li class="rightside" data-skip-responsive="true"><a href="./ucp.php?mode=login" title="Login" accesskey="x" role="menuitem"><i class="icon fa-power-off fa-fw" aria-hidden="true"></i><span>Login</span></a></li><li class="rightside" data-skip-responsive="true"><a href="./ucp.php?mode=register" role="menuitem"><i class="icon fa-pencil-square-o  fa-fw" aria-hidden="true"></i><span>Register</span></a></li></ul>
<ul id="nav-breadcrumbs" class="nav-breadcrumbs linklist navlinks" role="menubar"><li class="breadcrumbs" itemscope itemtype="https://schema.org/BreadcrumbList"><span class="crumb" itemtype="https://schema.org/ListItem" itemprop="itemListElement" itemscope><a itemprop="item" href="./index.php" accesskey="h" data-navbar-reference="index"><i class="icon fa-home fa-fw"></i><span itemprop="name">Board index</span></a><meta itemprop="position" content="1"></span><span class="crumb" itemtype="https://schema.org/ListItem" itemprop="itemListElement" itemscope><a itemprop="item" href="./viewforum.php?f=3"><span itemprop="name">Technical</span></a><meta itemprop="position" content="2"></span><span class="crumb" itemtype="https://schema.org/ListItem" itemprop="itemListElement" itemscope><a itemprop="item" href="./viewforum.php?f=7"><span itemprop="name">{esc(section)}</span></a><meta itemprop="position" content="3"></span></li></ul></div></div></div>
<a id="start_here" class="anchor"></a><div id="page-body" class="page-body" role="main">
<h2 class="topic-title"><a href="./viewtopic.php?t={rng.randint(10000, 99999)}">{esc(a.title)}</a></h2>
<div class="action-bar bar-top"><a href="./posting.php?mode=reply&amp;t=1" class="button" title="Post a reply"><span>Post Reply</span> <i class="icon fa-reply fa-fw" aria-hidden="true"></i></a><div class="pagination">{len(a.comments) + 1} posts &bull; Page <strong>1</strong> of <strong>1</strong></div></div>
{''.join(posts)}
<div class="action-bar bar-bottom"><a href="./posting.php?mode=reply&amp;t=1" class="button" title="Post a reply"><span>Post Reply</span></a><div class="pagination">{len(a.comments) + 1} posts &bull; Page <strong>1</strong> of <strong>1</strong></div></div>
<div class="action-bar actions-jump"><p class="jumpbox-return"><a href="./viewforum.php?f=7" class="left-box arrow-left" accesskey="r"><i class="icon fa-angle-left fa-fw icon-black" aria-hidden="true"></i><span>Return to &ldquo;{esc(section)}&rdquo;</span></a></p><div class="jumpbox dropdown-container dropdown-container-right dropdown-up dropdown-left dropdown-button-control" id="jumpbox"><span title="Jump to" class="button button-secondary dropdown-trigger dropdown-select"><span>Jump to</span></span><div class="dropdown"><ul class="dropdown-contents">{jump}</ul></div></div></div>
<div class="stat-block online-list"><h3>Who is online</h3><p>Users browsing this forum: <a href="#">Bing [Bot]</a>, {rng.randint(1, 6)} guests</p></div></div>
<div id="page-footer" class="page-footer" role="contentinfo"><div class="navbar" role="navigation"><div class="inner"><ul id="nav-footer" class="nav-footer linklist" role="menubar"><li class="breadcrumbs"><span class="crumb"><a href="./index.php" data-navbar-reference="index"><span>Board index</span></a></span></li><li class="rightside">All times are <span title="UTC">UTC</span></li><li class="rightside"><a href="./ucp.php?mode=delete_cookies" role="menuitem"><span>Delete cookies</span></a></li><li class="rightside" data-last-responsive="true"><a href="./memberlist.php?mode=contactadmin" role="menuitem"><span>Contact us</span></a></li></ul></div></div>
<div class="copyright"><p class="footer-row"><span class="footer-copyright">Powered by <a href="https://www.phpbb.com/">phpBB</a>&reg; Forum Software &copy; phpBB Limited</span></p><p class="footer-row" role="menu"><a class="footer-link" href="./ucp.php?mode=privacy" title="Privacy" role="menuitem"><span class="footer-link-text">Privacy</span></a> | <a class="footer-link" href="./ucp.php?mode=terms" title="Terms" role="menuitem"><span class="footer-link-text">Terms</span></a></p></div></div></div>
<script src="./assets/javascript/jquery-3.6.0.min.js?assets_version=112"></script><script src="./assets/javascript/core.js?assets_version=112"></script></body></html>"""


# --- Stack Overflow-like Q&A ------------------------------------------------------------

class ProseBody(Body):
    def code(self, text, lang):
        return f'<pre class="lang-{lang or "none"} s-code-block"><code class="hljs language-{lang or "plaintext"}">{highlight(text, lang, "hljs")}</code></pre>'


@skin("qa")
def qa(a: Article, rng) -> str:
    question = ProseBody(a).render()
    qcomments = [c for c in a.comments if c.get(2) == "qcomment"]
    answers = [c for c in a.comments if c.get(2) == "answer"]

    def comments_ul(items):
        return '<ul class="comments-list js-comments-list">' + "".join(
            f'<li class="comment js-comment" data-comment-id="{rng.randint(10**8, 10**9)}"><div class="js-comment-actions comment-actions"><div class="comment-score js-comment-score js-comment-edit-hide"><span title="number of \'useful comment\' votes received" class="cool">{rng.randint(1, 20)}</span></div></div><div class="comment-text js-comment-text-and-form"><div class="comment-body js-comment-edit-hide"><span class="comment-copy">{esc(" ".join(c.paras))}</span><div class="d-inline-flex ai-center">&ndash;&nbsp;<a href="/users/{rng.randint(1000, 99999)}" class="comment-user">{esc(c.author)}</a></div><span class="comment-date" dir="ltr"><span class="relativetime-clean">{esc(c.get(1))}</span></span></div></div></li>'
            for c in items) + "</ul>"

    def user(action, who, when, rep):
        return (f'<div class="post-signature owner flex--item"><div class="user-info user-hover"><div class="user-action-time">{action} <span class="relativetime">{esc(when)}</span></div><div class="user-gravatar32"><a href="/users/{rng.randint(1000, 99999)}"><div class="gravatar-wrapper-32"><img src="https://i.example.net/avatar.png?s=64" alt="{attr(who)}\'s user avatar" width="32" height="32" class="bar-sm"></div></a></div>'
                f'<div class="user-details" itemprop="author" itemscope itemtype="http://schema.org/Person"><a href="/users/{rng.randint(1000, 99999)}">{esc(who)}</a><div class="-flair"><span class="reputation-score" title="reputation score" dir="ltr">{rep}</span><span title="{rng.randint(1, 9)} silver badges"><span class="badge2"></span><span class="badgecount">{rng.randint(1, 30)}</span></span></div></div></div></div>')

    def vote(n, accepted=False):
        acc = '<div class="js-accepted-answer-indicator flex--item fc-green-400 py6 mtn8" data-s-tooltip-placement="right" title="Loading when this answer was accepted…" tabindex="0" role="note" aria-label="Accepted"><div class="ta-center"><svg aria-hidden="true" class="svg-icon iconCheckmarkLg" width="36" height="36" viewBox="0 0 36 36"><path d="m6 14 8 8L30 6v8L14 30l-8-8v-8Z"></path></svg></div></div>' if accepted else ""
        return (f'<div class="votecell post-layout--left"><div class="js-voting-container d-flex jc-center fd-column ai-center gs4 fc-black-300" data-post-id="1"><button class="js-vote-up-btn flex--item s-btn s-btn__unset c-pointer" aria-pressed="false" aria-label="Up vote">Up vote</button>'
                f'<div class="js-vote-count flex--item d-flex fd-column ai-center fc-black-500 fs-title" itemprop="upvoteCount" data-value="{n}">{n}</div><button class="js-vote-down-btn flex--item s-btn s-btn__unset c-pointer" aria-pressed="false" aria-label="Down vote">Down vote</button>{acc}</div></div>')

    ans_html = []
    for c in answers:
        accepted = c.get(4) == "accepted"
        body = "".join(f"<p>{esc(p)}</p>" if not p.startswith("$ ") else f'<pre class="lang-bash s-code-block"><code class="hljs language-bash">{esc(p[2:])}</code></pre>' for p in c.paras)
        ans_html.append(f'<div id="answer-{rng.randint(10**7, 10**8)}" class="answer js-answer{" accepted-answer js-accepted-answer" if accepted else ""}" data-answerid="{rng.randint(10**7, 10**8)}" data-parentid="1" data-score="{c.get(3, "0")}" data-position-on-page="1" itemprop="{"acceptedAnswer" if accepted else "suggestedAnswer"}" itemscope itemtype="https://schema.org/Answer"><div class="post-layout">{vote(c.get(3, "0"), accepted)}'
                        f'<div class="answercell post-layout--right"><div class="s-prose js-post-body" itemprop="text">{body}</div><div class="mt24"><div class="d-flex fw-wrap ai-start jc-end gs8 gsy"><div class="flex--item mr16" style="flex: 1 1 100px;"><div class="js-post-menu pt2" data-post-id="1"><div class="d-flex gs8 s-anchors s-anchors__muted fw-wrap"><div class="flex--item"><a href="/a/1" rel="nofollow" itemprop="url" class="js-share-link js-gps-track" title="Short permalink to this answer">Share</a></div><div class="flex--item"><a href="/posts/1/edit" class="js-suggest-edit-post js-gps-track" title="Revise and improve this post">Improve this answer</a></div><div class="flex--item"><button type="button" class="s-btn s-btn__link js-follow-post js-follow-answer js-gps-track">Follow</button></div></div></div></div>{user("answered", c.author, c.get(1), f"{rng.randint(1, 300)},{rng.randint(100, 999)}")}</div></div></div></div></div>')
    related = "".join(f'<div class="spacer"><a href="/q/{rng.randint(10**6, 10**8)}" title="Question score (highest is best)"><div class="answer-votes answered-accepted default">{rng.randint(1, 300)}</div></a><a href="/questions/{rng.randint(10**6, 10**8)}" class="question-hyperlink">{esc(t)}</a></div>' for t in pick(FORUM_TOPICS, 6, rng))
    hot = "".join(f'<li><div class="favicon favicon-{s}" title="{s}"></div><a href="https://{s}.example.com/questions/{rng.randint(10**4, 10**6)}" class="js-gps-track question-hyperlink">{esc(t)}</a></li>' for s, t in [("superuser", "Why does my laptop fan spin up when the lid is closed?"), ("math", "Is there a closed form for this alternating series?"), ("english", "Is 'data' singular or plural in a technical manual?"), ("diy", "Can I run a dryer vent through an unheated garage?"), ("cooking", "Why did my custard split even though I used a thermometer?")])
    return f"""<!DOCTYPE html>
<html itemscope itemtype="https://schema.org/QAPage" class="html__responsive " lang="en"><head>{decl(a)}<title>{esc(a.m('tags').split(',')[0].strip())} - {esc(a.title)} - Stack Overlook</title>
<meta name="viewport" content="width=device-width, height=device-height, initial-scale=1.0, minimum-scale=1.0"><meta property="og:type" content="website"><meta property="og:title" content="{attr(a.title)}"><meta name="description" content="{attr(_first_sentence(a))}">
<link rel="stylesheet" type="text/css" href="https://cdn.example.net/Shared/stacks.css?v=83d4b324173a"><link rel="stylesheet" type="text/css" href="https://cdn.example.net/Sites/stackoverlook/primary.css?v=e6d4f5a2c0"><style>{stylesheet(rng, 320, 's-')}</style>
<script>StackExchange.init({{"locale":"en","serverTime":1709650000,"routeName":"Questions/Show","stackAuthUrl":"https://stackauth.example.com","networkMetaHostname":"meta.stackexchange.com","site":{{"name":"Stack Overlook","description":"Q&A for professional and enthusiast programmers"}}}});</script></head>
<body class="question-page unified-theme"><div id="notify-container"></div><div id="custom-header"></div>
<header class="s-topbar ps-fixed t0 l0 js-top-bar"><div class="s-topbar--container"><a href="#" class="s-topbar--menu-btn js-left-sidebar-toggle" role="menuitem" aria-label="Open navigation" aria-controls="left-sidebar" aria-expanded="false"><span></span></a><a class="s-topbar--logo js-gps-track" href="/"><span class="-img _glyph">Stack Overlook</span></a>
<ol class="s-navigation" role="presentation"><li class="md:d-none"><a href="/about" class="s-navigation--item">About</a></li><li><a href="/questions" class="s-navigation--item">Products</a></li><li class="md:d-none"><a href="/teams" class="s-navigation--item">OverflowAI</a></li></ol>
<form id="search" role="search" action="/search" class="s-topbar--searchbar js-searchbar " autocomplete="off"><div class="s-topbar--searchbar--input-group"><input name="q" type="text" role="combobox" placeholder="Search…" value="" autocomplete="off" maxlength="240" class="s-input s-input__search js-search-field" aria-label="Search" aria-controls="top-search"></div></form>
<nav class="h100 ml-auto overflow-x-auto pr12"><ol class="s-topbar--content" role="menubar"><li class="s-topbar--item s-topbar--item__unset"><a href="/users/login" class="s-topbar--item s-topbar--item__unset s-btn s-btn__filled ws-nowrap js-gps-track" rel="nofollow">Log in</a></li><li class="s-topbar--item s-topbar--item__unset ml4"><a href="/users/signup" class="s-topbar--item s-topbar--item__unset ws-nowrap s-btn s-btn__primary js-gps-track" rel="nofollow">Sign up</a></li></ol></nav></div></header>
<div class="container"><div id="left-sidebar" data-is-here-when="md lg" class="left-sidebar js-pinned-left-sidebar ps-relative"><div class="left-sidebar--sticky-container js-sticky-leftnav"><nav role="navigation"><ol class="nav-links"><li><a href="/" class="pl8 js-gps-track nav-links--link"><div class="d-flex ai-center"><div class="flex--item truncate">Home</div></div></a></li><li><ol class="nav-links"><li class="youarehere"><a id="nav-questions" href="/questions" class="js-gps-track nav-links--link" aria-current="true"><div class="d-flex ai-center"><div class="flex--item truncate">Questions</div></div></a></li><li><a id="nav-tags" href="/tags" class="js-gps-track nav-links--link"><div class="d-flex ai-center"><div class="flex--item truncate">Tags</div></div></a></li><li><a id="nav-users" href="/users" class="js-gps-track nav-links--link"><div class="d-flex ai-center"><div class="flex--item truncate">Users</div></div></a></li><li><a href="/jobs/companies" class="js-gps-track nav-links--link"><div class="d-flex ai-center"><div class="flex--item truncate">Companies</div></div></a></li><li><a id="nav-labs-discussions" href="/collectives" class="js-gps-track nav-links--link"><div class="d-flex ai-center"><div class="flex--item truncate">Collectives</div></div></a></li></ol></li></ol></nav>
<div class="left-sidebar--collectives"><p class="fs-caption">Communities for your favorite technologies. <a href="/collectives">Explore all Collectives</a></p></div><div class="s-sidebarwidget"><p>Ask questions, find answers and collaborate at work with Stack Overlook for Teams.</p><a href="/teams" class="s-btn s-btn__filled">Try Teams for free</a></div></div></div>
<div id="content" class="snippet-hidden"><div itemprop="mainEntity" itemscope itemtype="https://schema.org/Question"><link itemprop="image" href="https://cdn.example.net/img/apple-touch-icon.png">
<div class="inner-content clearfix"><div id="question-header" class="d-flex sm:fd-column"><h1 itemprop="name" class="fs-headline1 ow-break-word mb8 flex--item fl1"><a href="/questions/{rng.randint(10**7, 10**8)}" class="question-hyperlink">{esc(a.title)}</a></h1><div class="ml12 aside-cta flex--item sm:ml0 sm:mb12 sm:order-first d-flex jc-end"><a href="/questions/ask" class="ws-nowrap s-btn s-btn__primary">Ask Question</a></div></div>
<div class="d-flex fw-wrap pb8 mb16 bb bc-black-225"><div class="flex--item ws-nowrap mr16 mb8" title="{a.m('date')} 14:02:11Z"><span class="fc-black-400 mr2">Asked</span><time itemprop="dateCreated" datetime="{a.m('date')}T14:02:11">{esc(a.m('asked', '2 years ago'))}</time></div><div class="flex--item ws-nowrap mr16 mb8"><span class="fc-black-400 mr2">Modified</span><a href="?lastactivity" class="s-link s-link__inherit" title="2024-02-11 09:14:07Z">1 month ago</a></div><div class="flex--item ws-nowrap mb8" title="Viewed {rng.randint(1000, 90000)} times"><span class="fc-black-400 mr2">Viewed</span>{rng.randint(1, 90)}k times</div></div>
<div id="mainbar" role="main" aria-label="question and answers"><div class="question js-question" data-questionid="{rng.randint(10**7, 10**8)}" data-position-on-page="0" data-score="{a.m('votes', '12')}" id="question"><div class="js-zone-container zone-container-main"><div id="dfp-tlb" class="everyonelovesstackoverflow everyoneloves__top-leaderboard everyoneloves__leaderboard"></div></div>
<div class="post-layout">{vote(a.m('votes', '12'))}<div class="postcell post-layout--right"><div class="s-prose js-post-body" itemprop="text">{question}</div>
<div class="mt24 mb12"><div class="post-taglist d-flex gs4 gsy fd-column"><div class="d-flex ps-relative fw-wrap"><ul class="ml0 list-ls-none js-post-tag-list-wrapper d-inline">{''.join(f'<li class="d-inline mr4 js-post-tag-list-item"><a href="/questions/tagged/{t}" class="post-tag" title="show questions tagged &#39;{t}&#39;" aria-label="show questions tagged &#39;{t}&#39;" rel="tag" aria-labelledby="tag-{t}-tooltip-container">{esc(t)}</a></li>' for t in a.tags)}</ul></div></div></div>
<div class="mb0 "><div class="mt16 d-flex gs8 gsy fw-wrap jc-end ai-start pt4 mb16"><div class="flex--item mr16 fl1 w96"><div class="js-post-menu pt2" data-post-id="1" data-post-type-id="1"><div class="d-flex gs8 s-anchors s-anchors__muted fw-wrap"><div class="flex--item"><a href="/q/1" rel="nofollow" itemprop="url" class="js-share-link js-gps-track" title="Short permalink to this question">Share</a></div><div class="flex--item"><a href="/posts/1/edit" class="js-suggest-edit-post js-gps-track" title="">Improve this question</a></div><div class="flex--item"><button type="button" id="btnFollowPost-1" class="s-btn s-btn__link js-follow-post js-follow-question js-gps-track">Follow</button></div></div></div></div>{user("asked", a.m('author'), a.m('asked', '2 years ago'), f"{rng.randint(1, 9)},{rng.randint(100, 999)}")}</div></div></div>
<div class="post-layout--right js-post-comments-component"><div id="comments-1" class="comments js-comments-container bt bc-black-075 mt12 " data-post-id="1" data-min-length="15">{comments_ul(qcomments)}</div><div id="comments-link-1" data-rep="50" data-anonymous="true"><a class="js-add-link comments-link disabled-link" title="Use comments to ask for more information or suggest improvements. Avoid answering questions in comments." href="#" role="button">Add a comment</a></div></div></div></div>
<div id="answers"><a name="tab-top"></a><div id="answers-header"><div class="answers-subheader d-flex ai-center mb8"><div class="flex--item fl1"><h2 class="mb0" data-answercount="{len(answers)}">{len(answers)} Answers<span style="display:none;" itemprop="answerCount">{len(answers)}</span></h2></div><div class="flex--item"><div class="d-flex g4 gsx ai-center sm:fd-column sm:ai-start"><div class="d-flex fd-column ai-end sm:ai-start"><label class="flex--item fs-caption" for="answer-sort-dropdown-select-menu">Sorted by:</label><a class="js-sort-preference-change s-link flex--item fs-fine d-none" data-value="ScoreDesc" href="/questions/1?answertab=scoredesc#tab-top">Reset to default</a></div><div class="flex--item s-select"><select id="answer-sort-dropdown-select-menu"><option value="scoredesc" selected="selected">Highest score (default)</option><option value="modifieddesc">Date modified (newest first)</option><option value="createdasc">Date created (oldest first)</option></select></div></div></div></div></div>
{''.join(ans_html)}
<h2 class="bottom-notice" data-loc="1">Not the answer you're looking for? Browse other questions tagged {' '.join(f'<a href="/questions/tagged/{t}" class="post-tag" title="show questions tagged &#39;{t}&#39;" aria-label="show questions tagged &#39;{t}&#39;" rel="tag">{esc(t)}</a>' for t in a.tags)} or <a href="/questions/ask">ask your own question</a>.</h2></div></div>
<div id="sidebar" class="show-votes" role="complementary" aria-label="sidebar"><div class="s-sidebarwidget s-sidebarwidget__yellow s-anchors s-anchors__grayscale mb16" data-tracker="cb=1"><ul class="d-block p0 m0"><div class="s-sidebarwidget--header s-sidebarwidget__small-bold-text fc-black-600 d:fc-black-900 bb bbw1">The Overlook Blog</div><li class="s-sidebarwidget--item d-flex px16"><div class="flex--item1 fl-shrink0"><svg aria-hidden="true" class="va-text-top svg-icon iconPencilSm" width="14" height="14" viewBox="0 0 14 14"><path fill="#404145" d="m11.1 1.71 1.13 1.12c.2.2.2.51 0 .71L11.1 4.7 9.21 2.86l1.17-1.15c.2-.2.51-.2.71 0ZM2 10.12l6.37-6.43 1.88 1.88L3.88 12H2v-1.88Z"></path></svg></div><div class="flex--item wmn0 ow-break-word"><a href="https://blog.example.com/2024/03/04/" class="js-gps-track" title="How engineers keep legacy payment systems running">How engineers keep legacy payment systems running</a></div></li><li class="s-sidebarwidget--item d-flex px16"><div class="flex--item wmn0 ow-break-word"><a href="https://blog.example.com/2024/03/01/" class="js-gps-track">Podcast 412: the quiet revolution in database tooling</a></div></li></ul></div>
<div id="dfp-mrec" class="everyonelovesstackoverflow everyoneloves__mid-leaderboard"></div>
<div class="module sidebar-linked"><h4 id="h-linked">Linked</h4><div class="linked">{related}</div></div>
<div class="module sidebar-related"><h4 id="h-related">Related</h4><div class="related js-gps-related-questions" data-tracker="rq=1">{related}</div></div>
<div id="hot-network-questions" class="module tex2jax_ignore"><h4><a href="https://stackexchange.example.com/questions?tab=hot" class="js-gps-track s-link s-link__inherit">Hot Network Questions</a></h4><ul>{hot}</ul><a href="#" class="show-more js-show-more js-gps-track">more hot questions</a></div></div></div></div></div></div>
<footer id="footer" class="site-footer js-footer" role="contentinfo"><div class="site-footer--container"><nav class="site-footer--nav"><div class="site-footer--col"><h5 class="-title"><a href="/" class="js-gps-track">Stack Overlook</a></h5><ul class="-list js-primary-footer-links"><li class="-item"><a href="/questions" class="js-gps-track -link">Questions</a></li><li class="-item"><a href="/help" class="js-gps-track -link">Help</a></li><li class="-item"><a href="/chat" class="js-gps-track -link">Chat</a></li></ul></div><div class="site-footer--col"><h5 class="-title"><a href="/teams" class="js-gps-track">Products</a></h5><ul class="-list"><li class="-item"><a href="/teams" class="js-gps-track -link">Teams</a></li><li class="-item"><a href="/advertising" class="js-gps-track -link">Advertising</a></li><li class="-item"><a href="/talent" class="js-gps-track -link">Talent</a></li></ul></div><div class="site-footer--col"><h5 class="-title"><a href="/company/about" class="js-gps-track">Company</a></h5><ul class="-list"><li class="-item"><a href="/company/about" class="js-gps-track -link">About</a></li><li class="-item"><a href="/company/press" class="js-gps-track -link">Press</a></li><li class="-item"><a href="/company/work-here" class="js-gps-track -link">Work Here</a></li><li class="-item"><a href="/legal" class="js-gps-track -link">Legal</a></li><li class="-item"><a href="/legal/privacy-policy" class="js-gps-track -link">Privacy Policy</a></li><li class="-item"><a href="/legal/terms-of-service" class="js-gps-track -link">Terms of Service</a></li><li class="-item"><a href="/contact" class="js-gps-track -link">Contact Us</a></li><li class="-item"><button type="button" class="s-btn s-btn__link py4 js-gps-track -link" data-consent-popup-loader="footer">Cookie Settings</button></li><li class="-item"><a href="/legal/cookie-policy" class="js-gps-track -link">Cookie Policy</a></li></ul></div></nav>
<div class="site-footer--copyright fs-fine md:mt24"><p class="md:mb0">Site design / logo © 2024 Stack Overlook Inc; user contributions licensed under <span class="td-underline"><a href="/help/licensing">CC BY-SA</a></span>. <span id="svnrev">rev 2024.3.5.5806</span></p></div></div></footer>
{cookie_banner(rng, 4)}{bundle(rng, 45000)}</body></html>"""
