"""Other skins: a press-release wire, a GOV.UK-like notice, a small town's CMS notice page,
and a page with no semantic hints at all (anonymous nested divs, text straight in them)."""
from __future__ import annotations

from articledoc import Article, attr, esc
from body import Body
from chrome import analytics, bundle, nav, stylesheet, teaser_list
from pools import NEWS_TEASERS, pick
from skinkit import decl, long_date, skin, us_date


# --- press release wire -----------------------------------------------------------------

@skin("press")
def press(a: Article, rng) -> str:
    body = Body(a).render()
    return f"""<!DOCTYPE html>
<html lang="en-US"><head>{decl(a)}<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(a.title)}</title><meta name="description" content="{attr(a.m('deck'))}"><meta name="robots" content="index, follow">
<link rel="stylesheet" href="/css/bootstrap.min.css"><link rel="stylesheet" href="/css/release.min.css"><style>{stylesheet(rng, 180, 'prn-')}</style>{analytics(rng, 'prw')}</head>
<body class="release-page"><div id="onetrust-banner-sdk" class="otFlat" role="region" aria-label="Cookie banner"><div class="ot-sdk-container"><div class="ot-sdk-row"><div id="onetrust-group-container" class="ot-sdk-eight ot-sdk-columns"><div id="onetrust-policy"><div id="onetrust-policy-text">By clicking "Accept All Cookies", you agree to the storing of cookies on your device to enhance site navigation, analyze site usage, and assist in our marketing efforts. <a href="/privacy-policy">Privacy Policy</a></div></div></div><div id="onetrust-button-group-parent"><button id="onetrust-accept-btn-handler">Accept All Cookies</button><button id="onetrust-pc-btn-handler">Cookies Settings</button></div></div></div></div>
<header class="main-header"><nav class="navbar navbar-default"><div class="container"><a class="navbar-brand" href="/">PR Relaywire</a>
<ul class="nav navbar-nav">{''.join(f'<li class="dropdown"><a href="/news-releases/{x.lower().replace(" ", "-").replace("&", "and")}/" class="dropdown-toggle">{x}</a></li>' for x in ['News in Focus', 'Business & Money', 'Science & Tech', 'Lifestyle & Health', 'Policy & Public Interest', 'People & Culture'])}</ul>
<ul class="nav navbar-nav navbar-right"><li><a href="/contact-us/">Contact</a></li><li><a href="/account/signin">Sign In</a></li><li><a href="/account/signup" class="btn btn-primary">Send a Release</a></li></ul></div></nav></header>
<main><section class="release-header"><div class="container"><div class="row"><div class="col-sm-8 col-sm-offset-2"><header class="release-header__title"><p class="release-header__news-type">News provided by</p><a class="release-header__company" href="/news/{a.m('company_slug', 'company')}/">{esc(a.m('company'))}</a>
<p class="mb-no">{us_date(a)}, 08:30 ET</p></header><h1>{esc(a.title)}</h1><p class="subtitle">{esc(a.m('deck'))}</p></div></div></div></section>
<div class="container"><div class="social-share-bar"><span>Share this article</span><a href="#">Facebook</a><a href="#">X</a><a href="#">LinkedIn</a><a href="#">Email</a></div></div>
<section class="release-body container"><div class="row"><div class="col-lg-10 col-lg-offset-1">
{body}
<p class="prnews_p">SOURCE {esc(a.m('company'))}</p></div></div></section>
<section class="release-footer container"><div class="row"><div class="col-sm-10 col-sm-offset-1"><h3>Also from this source</h3>{teaser_list([(f"{a.m('company')} reports record quarter for service revenue", "The company said recurring contracts now make up more than half of sales."), (f"{a.m('company')} names new chief technology officer", "The appointment follows a two-year search and takes effect next month.")], '/news', 'Also from this source', 'also-from', 'h4')}
<h3>Explore</h3><p><a href="/news-releases/energy/">Energy</a> · <a href="/news-releases/utilities/">Utilities</a> · <a href="/news-releases/environment/">Environment</a> · <a href="/news-releases/new-products/">New Products &amp; Services</a></p>
<div class="release-disclaimer"><p>News releases are provided by the issuing organisation, which is solely responsible for their content. PR Relaywire does not edit or verify them.</p></div></div></div></section></main>
<footer class="main-footer"><div class="container"><div class="row"><div class="col-sm-3"><h4>Contact</h4><p>Media inquiries: newsroom desk, available 24 hours a day, seven days a week.</p></div><div class="col-sm-3"><h4>Products</h4>{nav(['Distribution', 'Monitoring', 'Media Database', 'Multimedia'], '/products', 'footer-list', 'div')}</div><div class="col-sm-3"><h4>About</h4>{nav(['About PR Relaywire', 'Careers', 'Accessibility', 'Terms of Use', 'Privacy Policy', 'Information Security'], '/about', 'footer-list', 'div')}</div></div><p class="copyright">© 2024 PR Relaywire. All Rights Reserved.</p></div></footer>
{bundle(rng, 25000)}</body></html>"""


# --- GOV.UK-like notice -----------------------------------------------------------------

class GovBody(Body):
    def heading(self, level, text):
        return f'<h{level} id="{text.lower().replace(" ", "-")[:40]}">{self.inl(text)}</h{level}>'

    def ul(self, items):
        return '<ul>' + "".join(f"<li>{self.inl(i)}</li>" for i in items) + "</ul>"

    def note(self, title, text):
        return f'<div role="note" aria-label="Information" class="application-notice info-notice"><p><strong>{self.inl(title)}</strong></p><p>{self.inl(text)}</p></div>'


@skin("gov")
def gov(a: Article, rng) -> str:
    body = GovBody(a).render()
    contents = "".join(f'<li class="gem-c-contents-list__list-item gem-c-contents-list__list-item--dashed"><span class="gem-c-contents-list__list-item-dash" aria-hidden="true"></span><a class="gem-c-contents-list__link govuk-link" href="#{b.text.lower().replace(" ", "-")[:40]}">{esc(b.text)}</a></li>' for b in a.blocks if b.kind == "heading" and b.level == 2)
    return f"""<!DOCTYPE html>
<html lang="en" class="govuk-template"><head>{decl(a)}<title lang="en">{esc(a.title)} - GOV.UK</title><meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover"><meta name="theme-color" content="#0b0c0c">
<link rel="stylesheet" href="/assets/static/application-5d1f3c.css"><style>{stylesheet(rng, 100, 'govuk-')}</style><meta name="govuk:format" content="notice"><meta name="govuk:content-id" content="{rng.randint(10**7, 10**8):x}-notice">{analytics(rng, 'gov')}</head>
<body class="govuk-template__body"><script>document.body.className += ' js-enabled' + ('noModule' in HTMLScriptElement.prototype ? ' govuk-frontend-supported' : '');</script>
<div id="global-cookie-message" class="gem-c-cookie-banner govuk-clearfix" data-module="cookie-banner" role="region" aria-label="Cookies on GOV.UK"><div class="govuk-cookie-banner js-banner-wrapper" role="region" aria-label="Cookies on GOV.UK"><div class="gem-c-cookie-banner__message govuk-cookie-banner__message govuk-width-container"><div class="govuk-grid-row"><div class="govuk-grid-column-two-thirds"><h2 class="govuk-cookie-banner__heading govuk-heading-m">Cookies on GOV.UK</h2><div tabindex="-1" class="govuk-cookie-banner__content gem-c-cookie-banner__content"><p class="govuk-body">We use some essential cookies to make this website work.</p><p class="govuk-body">We’d like to set additional cookies to understand how you use GOV.UK, remember your settings and improve government services.</p><p class="govuk-body">We also use cookies set by other sites to help us deliver content from their services.</p></div></div></div><div class="govuk-button-group"><button class="govuk-button" type="submit" data-accept-cookies="true">Accept additional cookies</button><button class="govuk-button" type="submit" data-reject-cookies="true">Reject additional cookies</button><a class="govuk-link" href="/help/cookies">View cookies</a></div></div></div></div>
<a href="#main-content" class="govuk-skip-link" data-module="govuk-skip-link">Skip to main content</a>
<header role="banner" data-module="gem-header" class="gem-c-layout-super-navigation-header"><div class="gem-c-layout-super-navigation-header__container govuk-width-container govuk-clearfix"><div class="gem-c-layout-super-navigation-header__header-logo"><a class="govuk-header__link govuk-header__link--homepage" href="https://www.gov.uk/" id="logo" aria-label="Go to the GOV.UK homepage"><span class="govuk-header__logotype">GOV.UK</span></a></div>
<nav aria-labelledby="super-navigation-menu-heading" class="gem-c-layout-super-navigation-header__content" data-module="super-navigation-mega-menu"><h2 id="super-navigation-menu-heading" class="govuk-visually-hidden">Navigation menu</h2><div class="gem-c-layout-super-navigation-header__navigation-item"><a class="gem-c-layout-super-navigation-header__navigation-item-link" href="/browse"><span class="gem-c-layout-super-navigation-header__navigation-item-link-inner">Menu</span></a></div>
<div hidden id="super-navigation-menu" class="gem-c-layout-super-navigation-header__navigation-dropdown-menu"><div class="govuk-width-container"><div class="govuk-grid-row gem-c-layout-super-navigation-header__navigation-items"><div class="govuk-grid-column-one-third-from-desktop"><h3 class="govuk-heading-m">Services and information</h3><ul class="govuk-list">{''.join(f'<li><a class="govuk-link" href="/browse/{x.lower().replace(" ", "-")}">{x}</a></li>' for x in ['Benefits', 'Births, death, marriages and care', 'Business and self-employed', 'Childcare and parenting', 'Citizenship and living in the UK', 'Crime, justice and the law', 'Disabled people', 'Driving and transport', 'Education and learning', 'Employing people', 'Environment and countryside', 'Housing and local services', 'Money and tax', 'Passports, travel and living abroad', 'Visas and immigration', 'Working, jobs and pensions'])}</ul></div><div class="govuk-grid-column-one-third-from-desktop"><h3 class="govuk-heading-m">Government activity</h3><ul class="govuk-list"><li><a class="govuk-link" href="/government/organisations">Departments</a><p class="govuk-body-s">Departments, agencies and public bodies</p></li><li><a class="govuk-link" href="/search/news-and-communications">News</a><p class="govuk-body-s">News stories, speeches, letters and notices</p></li><li><a class="govuk-link" href="/search/guidance-and-regulation">Guidance and regulation</a><p class="govuk-body-s">Detailed guidance, regulations and rules</p></li></ul></div></div></div></div></nav></div></header>
<div class="govuk-width-container"><div class="gem-c-breadcrumbs govuk-breadcrumbs govuk-breadcrumbs--collapse-on-mobile" data-module="gem-track-click"><ol class="govuk-breadcrumbs__list">{''.join(f'<li class="govuk-breadcrumbs__list-item"><a class="govuk-breadcrumbs__link" href="/{c.lower().replace(" ", "-")}">{esc(c)}</a></li>' for c in a.m('crumbs', 'Home/Environment').split('/'))}</ol></div>
<main role="main" id="main-content" class="govuk-main-wrapper govuk-main-wrapper--auto-spacing" lang="en"><div class="govuk-grid-row gem-print-columns-none"><div class="govuk-grid-column-two-thirds"><div class="gem-c-title govuk-!-margin-top-8 govuk-!-margin-bottom-8"><span class="govuk-caption-xl gem-c-title__context">{esc(a.m('doctype', 'Notice'))}</span><h1 class="gem-c-title__text govuk-heading-xl">{esc(a.title)}</h1></div></div>
<div class="govuk-grid-column-two-thirds"><p class="gem-c-lead-paragraph">{esc(a.m('deck'))}</p></div></div>
<div class="govuk-grid-row"><div class="govuk-grid-column-two-thirds"><div class="gem-c-metadata" data-module="gem-toggle"><dl><dt class="gem-c-metadata__term">From:</dt><dd class="gem-c-metadata__definition"><a class="govuk-link" href="/government/organisations/{a.m('org', 'Environment Agency').lower().replace(' ', '-')}">{esc(a.m('org', 'Environment Agency'))}</a></dd><dt class="gem-c-metadata__term">Published</dt><dd class="gem-c-metadata__definition">{long_date(a)}</dd></dl></div></div></div>
<div class="govuk-grid-row"><div class="govuk-grid-column-two-thirds"><div class="gem-c-contents-list" role="navigation" aria-label="Contents"><h2 class="gem-c-contents-list__title">Contents</h2><ol class="gem-c-contents-list__list">{contents}</ol></div>
<div class="gem-c-govspeak govuk-govspeak" data-module="govspeak"><div class="govspeak">{body}</div></div>
<div class="gem-c-print-link govuk-!-display-none-print"><button class="govuk-link govuk-body-s gem-c-print-link__button" data-module="print-link">Print this page</button></div></div>
<div class="govuk-grid-column-one-third"><aside class="gem-c-contextual-sidebar"><div class="gem-c-related-navigation"><h2 id="related-nav-related_items" class="gem-c-related-navigation__main-heading" data-track-count="sidebarRelatedItemSection">Related content</h2><nav role="navigation" class="gem-c-related-navigation__nav-section" aria-labelledby="related-nav-related_items"><ul class="gem-c-related-navigation__link-list">{''.join(f'<li class="gem-c-related-navigation__link"><a class="govuk-link gem-c-related-navigation__section-link" href="/guidance/{i}">{esc(t)}</a></li>' for i, t in enumerate(a.m('related', 'Check if you need a licence;Report an environmental incident;Flood warnings near you').split(';')))}</ul></nav></div></aside></div></div></main></div>
<div class="govuk-width-container"><div class="gem-c-feedback govuk-!-display-none-print" data-module="feedback"><div class="gem-c-feedback__prompt gem-c-feedback__js-show js-prompt" tabindex="-1"><div class="gem-c-feedback__prompt-content"><div class="gem-c-feedback__prompt-questions js-prompt-questions"><div class="gem-c-feedback__prompt-question-answer"><h2 class="gem-c-feedback__prompt-question">Is this page useful?</h2><ul class="gem-c-feedback__option-list"><li class="gem-c-feedback__option-list-item govuk-visually-hidden" hidden><a class="gem-c-feedback__prompt-link" href="/contact/govuk">Maybe</a></li><li class="gem-c-feedback__option-list-item"><button class="govuk-button gem-c-feedback__prompt-link js-page-is-useful">Yes <span class="govuk-visually-hidden">this page is useful</span></button></li><li class="gem-c-feedback__option-list-item"><button class="govuk-button gem-c-feedback__prompt-link js-toggle-form js-page-is-not-useful">No <span class="govuk-visually-hidden">this page is not useful</span></button></li></ul></div></div><div class="gem-c-feedback__prompt-questions gem-c-feedback__prompt-questions--something-is-wrong js-prompt-questions"><button class="govuk-button gem-c-feedback__prompt-link js-toggle-form js-something-is-wrong">Report a problem with this page</button></div></div></div>
<form action="/contact/govuk/problem_reports" id="something-is-wrong" class="gem-c-feedback__form js-feedback-form" data-track-category="Onsite Feedback" hidden><div class="govuk-grid-row"><div class="govuk-grid-column-two-thirds"><h3 class="gem-c-feedback__form-heading">Help us improve GOV.UK</h3><p id="feedback_explanation" class="gem-c-feedback__form-paragraph">Don’t include personal or financial information like your National Insurance number or credit card details.</p><div class="govuk-form-group"><label for="input-1" class="gem-c-label govuk-label">What were you doing?</label><input class="gem-c-input govuk-input" id="input-1" name="what_doing" type="text"></div><button class="gem-c-button govuk-button" type="submit">Send</button></div></div></form></div></div>
<footer class="gem-c-layout-footer govuk-footer" role="contentinfo"><div class="govuk-width-container"><div class="govuk-footer__navigation"><div class="govuk-grid-column-two-thirds"><h2 class="govuk-footer__heading govuk-heading-m">Services and information</h2><ul class="govuk-footer__list govuk-footer__list--columns-2">{''.join(f'<li class="govuk-footer__list-item"><a class="govuk-footer__link" href="/browse/{x.lower()}">{x}</a></li>' for x in ['Benefits', 'Business', 'Childcare', 'Citizenship', 'Crime', 'Disabled people', 'Driving', 'Education', 'Employing people', 'Environment', 'Housing', 'Money and tax', 'Passports', 'Visas', 'Working'])}</ul></div></div><hr class="govuk-footer__section-break">
<div class="govuk-footer__meta"><div class="govuk-footer__meta-item govuk-footer__meta-item--grow"><h2 class="govuk-visually-hidden">Support links</h2><ul class="govuk-footer__inline-list"><li class="govuk-footer__inline-list-item"><a class="govuk-footer__link" href="/help">Help</a></li><li class="govuk-footer__inline-list-item"><a class="govuk-footer__link" href="/help/privacy-notice">Privacy</a></li><li class="govuk-footer__inline-list-item"><a class="govuk-footer__link" href="/help/cookies">Cookies</a></li><li class="govuk-footer__inline-list-item"><a class="govuk-footer__link" href="/help/accessibility-statement">Accessibility statement</a></li><li class="govuk-footer__inline-list-item"><a class="govuk-footer__link" href="/contact">Contact</a></li><li class="govuk-footer__inline-list-item"><a class="govuk-footer__link" href="/help/terms-conditions">Terms and conditions</a></li></ul>
<span class="govuk-footer__licence-description">All content is available under the <a class="govuk-footer__link" href="https://www.nationalarchives.gov.uk/doc/open-government-licence/version/3/" rel="license">Open Government Licence v3.0</a>, except where otherwise stated</span></div><div class="govuk-footer__meta-item"><a class="govuk-footer__link govuk-footer__copyright-logo" href="https://www.nationalarchives.gov.uk/information-management/re-using-public-sector-information/uk-government-licensing-framework/crown-copyright/">© Crown copyright</a></div></div></div></footer>
<script src="/assets/static/application-8a3f.js" type="module"></script></body></html>"""


# --- a small town's CMS notice ----------------------------------------------------------

class CivicBody(Body):
    """A WYSIWYG field pasted from a word processor: <div>s with inline styles, <span>s,
    &nbsp; runs, mixed-case tags."""
    def para(self, text):
        return f'<DIV style="margin-bottom:10px"><span style="font-family: Arial, sans-serif; font-size: 11pt;">{self.inl(text)}</span></DIV>'

    def heading(self, level, text):
        return f'<div><STRONG><span style="font-size: 13pt;">{self.inl(text)}</span></STRONG></div>'

    def ul(self, items):
        return '<UL>' + "".join(f'<LI><span style="font-family: Arial;">{self.inl(i)}</span></LI>' for i in items) + '</UL>'

    def table(self, rows):
        head = "".join(f'<TD style="border:1px solid #000"><STRONG>{self.inl(c)}</STRONG></TD>' for c in rows[0])
        body = "".join("<TR>" + "".join(f'<TD style="border:1px solid #000">{self.inl(c)}</TD>' for c in r) + "</TR>" for r in rows[1:])
        return f'<TABLE style="border-collapse:collapse" border="1"><TBODY><TR>{head}</TR>{body}</TBODY></TABLE>'


@skin("civic")
def civic(a: Article, rng) -> str:
    body = CivicBody(a).render()
    town = a.m("site", "Town of Hollis Falls")
    return f"""<!DOCTYPE html>
<html lang="en"><head>{decl(a)}<title>{esc(a.title)} | {esc(town)}, NY - Official Website</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/Assets/Styles/Print.css" media="print"><link rel="stylesheet" href="/Areas/Layout/Assets/Styles/Structure.css?v=1"><style>{stylesheet(rng, 120, 'cp-')}</style>
<script src="/Assets/Scripts/jQuery/jquery-3.6.0.min.js"></script>{analytics(rng, 'civic')}</head>
<body class="wide"><div id="skipToContentLinks"><a href="#cc{rng.randint(1000, 9999)}" class="skipToContentLink">Skip to Main Content</a></div>
<div id="outer-wrap"><div id="bodyWrapper"><div id="banner1" class="siteWrap"><div id="divLogo"><a href="/"><img src="/ImageRepository/Document?documentID=1" alt="{attr(town)} Logo"></a></div>
<div id="divTopNav"><ol id="mainNavMenu" class="dropdown">{''.join(f'<li><a id="mainNav{i}" class="mainNavItem" href="/{x.replace(" ", "-")}">{x}</a></li>' for i, x in enumerate(['Government', 'Departments', 'Community', 'Business', 'How Do I...', 'Pay Online', 'Agendas & Minutes']))}</ol></div>
<div class="widget search"><form><input type="search" placeholder="Search..." aria-label="Search"></form></div></div>
<div id="divContent"><div class="breadCrumbs">{' > '.join(f'<a href="/{c}">{esc(c)}</a>' for c in a.m('crumbs', 'Home/News Flash').split('/'))}</div>
<div id="cc{rng.randint(1000, 9999)}" class="pageContent"><div class="col"><div class="moduleContentNew">
<div id="ctl00_ctl00_MainContent_ModuleContent_ctl00_contentDetail"><div class="detail"><h3>{esc(a.title)}</h3><div class="date">Post Date: {a.m('date').replace('-', '/')} 3:15 PM</div>
<div class="fr-view">{body}</div>
<div class="addthis_toolbox"><span>Tools</span><a class="rss" href="/RSSFeed.aspx?ModID=1">RSS</a><a href="/civicalerts.aspx?AID=0&amp;print=true" class="print">Print</a><a href="/CivicSend/Index" class="email">Email</a><a href="#">Share &amp; Bookmark</a><span>Font Size: <a href="#">+</a> <a href="#">-</a></span></div>
<div class="backLink"><a href="/CivicAlerts.aspx">⇐Previous</a> <a href="/CivicAlerts.aspx">Next⇒</a> <a href="/CivicAlerts.aspx">Return to News Flash</a></div></div></div></div></div>
<div class="col sidebar"><div class="widget relatedNews"><h3>Other News in {esc(a.m('category', 'News Flash'))}</h3><ul>{''.join(f'<li><a href="/CivicAlerts.aspx?AID={rng.randint(100, 999)}">{esc(h)}</a><p>{esc(t)}</p></li>' for h, t in pick(NEWS_TEASERS, 4, rng))}</ul></div>
<div class="widget quicklinks"><h3>Quick Links</h3><ul><li><a href="/Pay">Pay a Water Bill</a></li><li><a href="/Permits">Building Permits</a></li><li><a href="/Notify">Sign up for Notify Me®</a></li><li><a href="/Jobs">Employment Opportunities</a></li></ul></div></div></div></div>
<div id="footer"><div class="siteWrap"><div class="contact"><h4>Contact Us</h4><p>{esc(town)}<br>Town Hall, 41 Church Street<br>Phone: 845-555-0172<br>Hours: Monday - Friday, 8:30 am - 4:30 pm</p></div><div class="links"><a href="/Accessibility">Accessibility</a> | <a href="/CopyrightNotices">Copyright Notices</a> | <a href="/Privacy">Privacy Policy</a> | <a href="/Sitemap">Site Map</a></div><p class="poweredBy">Government Websites by CivicPlatform®</p></div></div></div></div>
{bundle(rng, 6000)}</body></html>"""


# --- no semantic hints at all -----------------------------------------------------------

class BareBody(Body):
    """Text straight in anonymous divs, <br><br> between paragraphs, mixed-case tags,
    misnested inline tags, some paragraphs never closed."""
    misnest = True
    em = "i"
    strong = "b"

    def __init__(self, article, hooks=None):
        super().__init__(article, hooks)
        self.entities = article.m("entities") == "yes"

    def para(self, text):
        opened_before, self.open_p = getattr(self, "open_p", False), self.n_para % 3 == 0
        if self.open_p:
            return f"<P>{self.inl(text)}"  # never closed
        # after an unclosed <P>, old editors opened the next paragraph with <P> too
        return f"{'<P>' if opened_before else ''}{self.inl(text)}<Br><BR>"

    def heading(self, level, text):
        return f'<DIV style="font-size:18px;font-weight:bold;margin:12px 0 4px">{self.inl(text)}</div>'

    def ul(self, items):
        return "<ul>" + "".join(f"<LI>{self.inl(i)}" for i in items) + "</UL>"

    def quote(self, text):
        return f'<div style="margin-left:30px;font-style:italic">{self.inl(text)}</DIV>'

    def table(self, rows):
        return "<table border=1 cellpadding=3>" + "".join("<tr>" + "".join(f"<td>{self.inl(c)}" for c in r) for r in rows) + "</table>"

    def fig(self, name, text):
        return f'<div style="text-align:center"><img src="img/{name}" width=400><br><font size=2>{self.inl(text)}</font></div>'


@skin("nohints")
def nohints(a: Article, rng) -> str:
    body = BareBody(a).render()
    links = " | ".join(f'<a href="{x.lower().replace(" ", "")}.html">{x}</a>' for x in a.m("menu", "Home,About Us,Programs,Events,Volunteer,Donate,Newsletter Archive,Contact").split(","))
    return f"""<html>
<head>{decl(a)}
<title>{esc(a.title)}</title>
<SCRIPT type="text/javascript">var _paq = window._paq = window._paq || []; _paq.push(['trackPageView']); _paq.push(['enableLinkTracking']);</SCRIPT>
<style>body{{font-family:Verdana;font-size:13px;background:#eef}} div div{{padding:4px}}</style>
</head>
<BODY>
<div style="background:#336;color:#fff;padding:10px"><div style="font-size:26px">{esc(a.m('site', 'Riverside Community Trust'))}</div><div>{esc(a.m('tagline', ''))}</div></div>
<div style="background:#ccd;padding:5px">{links}</div>
<div style="width:960px;margin:auto">
<div style="float:right;width:220px;background:#fff;font-size:11px">
<div><b>Upcoming</b><br>{'<br>'.join(esc(x) for x in a.m('upcoming', 'Sat 16 Mar: river litter pick, 10am at the boathouse;Tue 19 Mar: trustees meeting, 7pm, library meeting room;Sun 24 Mar: spring plant swap, community garden').split(';'))}</div>
<div><b>Support us</b><br>Every donation, large or small, helps keep our programmes free for the families who use them. <a href="donate.html">Give online</a></div>
<div><b>Find us</b><br>The Old Boathouse, Mill Lane<br>Open Tue-Sat 10-4</div></div>
<div style="margin-right:240px;background:#fff;padding:10px">
<div style="font-size:22px;font-weight:bold">{esc(a.title)}</div>
<div style="color:#666">{esc(a.m('byline', ''))}</div>
<div>
{body}
</div>
<div style="border-top:1px solid #999;margin-top:10px;font-size:11px">Posted in <a href="news.html">News</a> | <a href="javascript:window.print()">Print</a> | <a href="mailto:?subject={attr(a.title)}">Email to a friend</a></div>
</div>
<div style="clear:both;border-top:2px solid #336;font-size:11px;padding:8px">{esc(a.m('footer', 'Registered charity no. 1098765. Company limited by guarantee no. 4567890.'))} Website kindly maintained by volunteers. <a href="privacy.html">Privacy</a> | <a href="accessibility.html">Accessibility</a></div>
</div>
</BODY>
</html>"""
