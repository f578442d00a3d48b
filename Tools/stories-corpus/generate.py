#!/usr/bin/env python3
"""Writes Tests/Fixtures/stories/corpus.json: feed items as Tributary's sources deliver them
(id, source, url, title, published, fetched, tags), each labelled with the story it truly tells
(`truth`) and, for hard negatives, the family it belongs to (`family`, `differs_by`).

Deterministic (seeded): run it again and the file is the same. Usage:
    python3 Tools/stories-corpus/generate.py [output path [seed]]

Outlets are fictional; what their copies look like follows what real feeds do:
- wires publish first; an `UPDATE 1-` copy keeps the URL;
- Google News wraps the publisher's link (`news.google.com/news/url?...&url=`) and appends
  " - Publisher";
- a link aggregator adds `?utm_source=...` and " | Publisher";
- the mobile feed links `m.` + `/amp` (or `?amp=1`, `.amp`, `/amp/`) with "BREAKING:";
- a broadcaster's two feeds link one page with `#0` and `#3`;
- a newsletter adds `mc_cid`/`mc_eid`; a Facebook page wraps with `l.facebook.com/l.php?u=`;
- portals and newspapers republish at their own URL, with their own headline (a light edit),
  in title case or with " | Paper", " - Paper", " — Paper", " – Paper", "(Wire)".
"""
import datetime
import hashlib
import json
import os
import random
import re
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stories_major import MAJOR, FOREIGN, SINGLES, FOLLOWUPS  # noqa: E402
from stories_families import sports_games, markets, earnings, companies, places, recurring  # noqa: E402

START = datetime.datetime(2026, 5, 4, tzinfo=datetime.timezone.utc)

OUTLETS = {
    # wires and first publishers
    "meridian": dict(name="Meridian Wire", host="www.meridianwire.com", style="sentence", url="wire"),
    "anw": dict(name="Associated Newswire", host="apnews-wire.com", style="sentence", url="anw"),
    "gpa": dict(name="GPA", host="www.gpanews.net", style="sentence", url="gpa"),
    "nbs": dict(name="NBS News", host="www.nbs.co.uk", style="sentence", url="nbs"),
    "channel9": dict(name="Channel 9 News", host="www.channel9news.com", style="sentence", url="ch9"),
    "circuit": dict(name="Circuit", host="circuit.tech", style="sentence", url="blog"),
    "thebyte": dict(name="The Byte", host="www.thebyte.com", style="title", url="blog"),
    "scoreline": dict(name="Scoreline", host="www.scoreline.com", style="sentence", url="sport"),
    "sportsdaily": dict(name="Sports Daily", host="www.sportsdaily.com", style="title", url="sport"),
    "goalpost": dict(name="Goal Post", host="www.goalpost.co.uk", style="sentence", url="sport"),
    "newsroll": dict(name="Newsroll", host="newsroll.io", style="sentence", url="blog"),
    "tickertimes": dict(name="Ticker Times", host="www.tickertimes.com", style="title", url="paper"),
    "springfield": dict(name="Springfield Herald", host="www.springfieldherald.com", style="title", url="paper"),
    "northern": dict(name="Northern Post", host="www.northernpost.co.uk", style="sentence", url="paper"),
    "lequotidien": dict(name="Le Quotidien", host="www.lequotidien.fr", style="sentence", url="paper"),
    "infomatin": dict(name="Info Matin", host="www.infomatin.fr", style="sentence", url="paper"),
    "tagesblick": dict(name="Tagesblick", host="www.tagesblick.de", style="sentence", url="paper"),
    "rheinpost": dict(name="Rheinpost", host="www.rheinpost.de", style="sentence", url="paper"),
    "diario": dict(name="Diario Central", host="www.diariocentral.es", style="sentence", url="paper"),
    "lavoz": dict(name="La Voz Digital", host="www.lavozdigital.es", style="sentence", url="paper"),
    "nippon": dict(name="Nippon Daily", host="www.nippondaily.jp", style="sentence", url="paper"),
    "tokyonow": dict(name="Tokyo Now", host="tokyonow.jp", style="sentence", url="paper"),
    # republishers (own URL, own headline)
    "ledger": dict(name="The Daily Ledger", host="www.dailyledger.com", style="title", url="townnews", suffix=" | The Daily Ledger"),
    "springfield_s": dict(name="Springfield Herald", host="www.springfieldherald.com", style="title", url="paper", suffix=" - Springfield Herald"),
    "northern_s": dict(name="Northern Post", host="www.northernpost.co.uk", style="sentence", url="paper", suffix=" \u2014 Northern Post"),
    "yonder": dict(name="Yonder News", host="news.yonder.com", style="sentence", url="portal"),
    "startnews": dict(name="Startpage News", host="www.startnews.com", style="sentence", url="msn"),
    "courier": dict(name="The Courier", host="www.thecourier.com.au", style="sentence", url="paper", suffix=" | The Courier"),
    "baycity": dict(name="Bay City Times", host="www.baycitytimes.com", style="sentence", url="paper", suffix=" \u2013 Bay City Times", query="?ref=rss"),
    "channel9_s": dict(name="Channel 9 News", host="www.channel9news.com", style="sentence", url="ch9", prefix="WATCH: "),
    "metro": dict(name="Metro Gazette", host="www.metrogazette.com", style="title", url="paper", credit=True),
    "sportsdaily_s": dict(name="Sports Daily", host="www.sportsdaily.com", style="title", url="sport", suffix=" | Sports Daily"),
    "goalpost_s": dict(name="Goal Post", host="www.goalpost.co.uk", style="sentence", url="sport", suffix=" - Goal Post"),
    "thebyte_s": dict(name="The Byte", host="www.thebyte.com", style="title", url="blog", suffix=" - The Byte"),
    "lequotidien_s": dict(name="Le Quotidien", host="www.lequotidien.fr", style="sentence", url="paper"),
    "tokyonow_s": dict(name="Tokyo Now", host="tokyonow.jp", style="sentence", url="paper"),
}

ORIGINS = {
    "politics": ["meridian", "anw", "gpa", "nbs"],
    "business": ["meridian", "anw", "tickertimes"],
    "economy": ["meridian", "anw", "gpa"],
    "markets": ["meridian", "tickertimes", "anw"],
    "world": ["meridian", "anw", "gpa", "nbs"],
    "tech": ["circuit", "thebyte", "meridian"],
    "science": ["anw", "nbs", "gpa"],
    "culture": ["anw", "nbs"],
    "sports": ["scoreline", "anw", "sportsdaily"],
    "local": ["northern", "springfield", "channel9"],
    "weather": ["channel9", "nbs", "anw"],
}
REPUBLISHERS = {
    "politics": ["ledger", "yonder", "startnews", "courier", "baycity", "northern_s", "metro", "springfield_s", "channel9_s"],
    "business": ["ledger", "yonder", "startnews", "baycity", "metro", "courier"],
    "economy": ["ledger", "yonder", "startnews", "courier", "northern_s"],
    "markets": ["yonder", "startnews", "ledger", "baycity"],
    "world": ["ledger", "yonder", "startnews", "courier", "baycity", "northern_s", "metro", "channel9_s"],
    "tech": ["thebyte_s", "yonder", "startnews", "ledger", "metro"],
    "science": ["yonder", "startnews", "ledger", "courier", "northern_s"],
    "culture": ["yonder", "startnews", "ledger", "metro", "courier"],
    "sports": ["sportsdaily_s", "goalpost_s", "yonder", "ledger", "springfield_s"],
    "local": ["yonder", "channel9_s", "baycity"],
    "weather": ["yonder", "channel9_s", "springfield_s", "northern_s"],
}
LINKERS = ["gn", "newsroll", "mobile", "update", "fb", "newsletter", "second", "ampcache"]
LINKER_WEIGHTS = {"gn": 3, "newsroll": 3, "mobile": 3, "update": 2, "fb": 1, "newsletter": 2, "second": 2, "ampcache": 1}

SMALL = {"a", "an", "the", "and", "but", "or", "nor", "for", "on", "at", "to", "by", "of", "in", "as", "vs", "via", "up", "off"}


def title_case(s):
    words = s.split(" ")
    out = []
    for i, w in enumerate(words):
        if not w:
            out.append(w)
            continue
        def cap(part, first):
            if not part or not part[0].isalpha() and not part[0] in "'\"\u2018\u201c":
                return part
            lead = ""
            while part and part[0] in "'\"\u2018\u201c(":
                lead, part = lead + part[0], part[1:]
            if not part:
                return lead
            if part.lower() in SMALL and not first:
                return lead + part.lower()
            if any(c.isupper() for c in part[1:]) or part[0].isupper():
                return lead + part
            return lead + part[0].upper() + part[1:]
        first = i == 0 or out and out[-1].endswith(":")
        out.append("-".join(cap(p, first or j > 0) for j, p in enumerate(w.split("-"))))
    return " ".join(out)


def slugify(s, words=9):
    s = s.lower()
    s = re.sub(r"[\u2018\u2019']", "", s)
    s = re.sub(r"[^a-z0-9]+", "-", s).strip("-")
    return "-".join(s.split("-")[:words]) or "story"


class Gen:
    def __init__(self, seed=2026):
        self.rng = random.Random(seed)
        self.items = []
        self.stories = 0
        self.counter = 0

    def code(self, n=8, alphabet="0123456789"):
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def hexcode(self, n):
        return self.code(n, "0123456789abcdef")

    def when(self, day, hour, minute=None):
        m = self.rng.randint(0, 59) if minute is None else minute
        return START + datetime.timedelta(days=day, hours=hour, minutes=m)

    def url_for(self, outlet_id, headline, topic, t):
        o = OUTLETS[outlet_id]
        host, kind = o["host"], o["url"]
        slug = slugify(headline)
        section = {"politics": "politics", "business": "business", "economy": "business", "markets": "markets", "world": "world",
                   "tech": "technology", "science": "science", "culture": "entertainment", "sports": "sport",
                   "local": "local", "weather": "weather"}[topic]
        if kind == "wire":
            return f"https://{host}/{section}/{slug}-id{self.code(2, 'ABCDEFGHJKLMNPQRSTUVWXYZ')}{self.code(7)}/"
        if kind == "anw":
            return f"https://{host}/article/{slug}-{self.hexcode(32)}"
        if kind == "gpa":
            return f"https://{host}/news/{t:%Y/%m/%d}/{slug}"
        if kind == "nbs":
            return f"https://{host}/news/{section}-{self.code(8)}"
        if kind == "ch9":
            return f"https://{host}/{section}/{slug}/{self.code(7)}/"
        if kind == "blog":
            return f"https://{host}/{t:%Y/%m/%d}/{slug}/"
        if kind == "sport":
            return f"https://{host}/{section}/{slug}-{self.code(6)}"
        if kind == "townnews":
            return f"https://{host}/news/nation-world/{slug}/article_{self.hexcode(8)}-{self.hexcode(4)}-{self.hexcode(4)}.html"
        if kind == "portal":
            return f"https://{host}/{slug}-{self.code(9)}.html"
        if kind == "msn":
            return f"https://{host}/en-us/news/{section}/{slug}/ar-AA{self.code(6, 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789')}?ocid=rss&cvid={self.hexcode(32)}"
        return f"https://{host}/{section}/{t:%Y/%m/%d}/{slug}-{self.code(5)}.html"

    def add(self, truth, source, outlet_id, title, url, guid, t, topic, family=None, differs=None, published=True, edit="same"):
        fetched = t + datetime.timedelta(minutes=self.rng.randint(1, 45), seconds=self.rng.randint(0, 59))
        self.counter += 1
        item = {"id": f"feed:{hashlib.sha1((source + '|' + guid).encode()).hexdigest()[:16]}", "source": source,
                "url": url, "title": title}
        if published:
            item["published"] = t.strftime("%Y-%m-%dT%H:%M:%SZ")
        item["fetched"] = fetched.strftime("%Y-%m-%dT%H:%M:%SZ")
        tags = {"politics": ["politics"], "business": ["business"], "economy": ["business", "economy"], "markets": ["business", "markets"],
                "world": ["world"], "tech": ["technology"], "science": ["science"], "culture": ["culture"], "sports": ["sports"],
                "local": ["local"], "weather": ["weather"]}[topic]
        if self.rng.random() < 0.15:
            tags = tags + ["top stories"]
        item["tags"] = tags
        item["truth"] = truth
        # How this copy's headline relates to the first publisher's: the same words (whatever
        # labels, outlet names and case), a light edit, or a rewrite by another desk.
        item["edit"] = edit
        if family:
            item["family"] = family
            item["differs_by"] = differs
        self.items.append(item)

    def restyle(self, outlet_id, headline):
        o = OUTLETS[outlet_id]
        h = headline
        if o["style"] == "title":
            h = title_case(h)
        if o.get("credit"):
            wire = self.rng.choice(["Meridian Wire", "AN", "GPA"])
            h = f"{h} ({wire})"
        if o.get("prefix") and self.rng.random() < 0.5:
            h = o["prefix"] + h
        if o.get("suffix"):
            h = h + o["suffix"]
        return h

    def story(self, topic, day, hour, versions, n_copies, family=None, differs=None, origin=None, linkers=None, republish=True):
        self.stories += 1
        truth = f"s{self.stories:04d}"
        origin = origin or self.rng.choice(ORIGINS[topic])
        t0 = self.when(day, hour)
        base = versions[0]
        light = [v for v in versions[1:] if not v.startswith("~")]
        rewrites = [v[1:] for v in versions[1:] if v.startswith("~")]
        o = OUTLETS[origin]
        head0 = title_case(base) if o["style"] == "title" else base
        url0 = self.url_for(origin, base, topic, t0)
        self.add(truth, o["name"], origin, head0, url0, url0, t0, topic, family, differs)
        if n_copies == 0:
            return truth
        modes = []
        options = linkers if linkers is not None else LINKERS
        for _ in range(n_copies):
            if republish and (self.rng.random() < 0.45 or not options):
                modes.append("republish")
            else:
                modes.append(self.rng.choices(options, weights=[LINKER_WEIGHTS[m] for m in options])[0])
        used_republishers = set()
        for mode in modes:
            dt = datetime.timedelta(minutes=self.rng.randint(5, 240))
            t = t0 + dt
            if mode == "republish":
                pool = [r for r in REPUBLISHERS[topic] if r not in used_republishers and OUTLETS[r]["host"] != o["host"]]
                if not pool:
                    continue
                r = self.rng.choice(pool)
                used_republishers.add(r)
                # Most republishers keep the wire's headline (60%); others edit it lightly (30%)
                # or put their own headline on the report (10%).
                pick = self.rng.random()
                version, edit = base, "same"
                if pick >= 0.9 and rewrites:
                    version, edit = self.rng.choice(rewrites), "rewrite"
                elif pick >= 0.6 and light:
                    version, edit = self.rng.choice(light), "light"
                elif pick >= 0.6 and rewrites:
                    version, edit = self.rng.choice(rewrites), "rewrite"
                # Most republishers pick a wire story up within hours; print-led sites the next
                # morning; a few a day or more later.
                r_delay = self.rng.random()
                if r_delay < 0.6:
                    minutes = self.rng.randint(15, 180)
                elif r_delay < 0.88:
                    minutes = self.rng.randint(180, 14 * 60)
                else:
                    minutes = self.rng.randint(14 * 60, 40 * 60)
                t = t0 + datetime.timedelta(minutes=minutes)
                url = self.url_for(r, version, topic, t)
                if OUTLETS[r].get("query"):
                    url += OUTLETS[r]["query"]
                self.add(truth, OUTLETS[r]["name"], r, self.restyle(r, version), url, url, t, topic, family, differs,
                         published=self.rng.random() > 0.05, edit=edit)
            elif mode == "gn":
                section = {"sports": "Sports", "business": "Business", "economy": "Business", "markets": "Business",
                           "tech": "Technology", "science": "Science"}.get(topic, "Top stories")
                url = ("https://news.google.com/news/url?sa=t&fd=R&ct2=us&usg=AOvVaw" + self.code(22, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
                       + "&clid=c3a7d30bb8a4878e06b80cf16b898331&ei=" + self.code(20, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
                       + "&url=" + urllib.parse.quote(url0, safe=""))
                self.add(truth, f"Google News - {section}", "gn", f"{base} - {o['name']}", url, "tag:news.google.com,2005:cluster=" + self.code(18), t,
                         topic, family, differs)
            elif mode == "newsroll":
                url = url0 + ("&" if "?" in url0 else "?") + "utm_source=newsroll&utm_medium=rss&utm_campaign=newsroll-" + topic
                self.add(truth, "Newsroll", "newsroll", f"{base} | {o['name']}", url, "newsroll-" + self.code(10), t, topic, family, differs,
                         published=self.rng.random() > 0.3)
            elif mode == "mobile":
                p = urllib.parse.urlsplit(url0)
                host = "m." + p.netloc[4:] if p.netloc.startswith("www.") else "m." + p.netloc
                form = self.rng.choice(["amp-seg", "amp-seg-slash", "amp-query", "amp-ext", "plain"])
                path = p.path
                query = p.query
                if form == "amp-seg":
                    path = path.rstrip("/") + "/amp"
                elif form == "amp-seg-slash":
                    path = path.rstrip("/") + "/amp/"
                elif form == "amp-query":
                    query = (query + "&" if query else "") + "amp=1"
                elif form == "amp-ext":
                    path = path.rstrip("/") + ".amp"
                url = urllib.parse.urlunsplit(("https" if self.rng.random() < 0.8 else "http", host, path, query, ""))
                label = self.rng.choice(["BREAKING: ", "BREAKING: ", "Breaking: ", "UPDATE: ", "LIVE: ", "JUST IN: ", ""])
                self.add(truth, f"{o['name']} (mobile)", origin, label + head0, url, url, t0 + datetime.timedelta(minutes=self.rng.randint(0, 15)),
                         topic, family, differs)
            elif mode == "update":
                if o["url"] == "wire":
                    title = f"UPDATE {self.rng.randint(1, 3)}-{base}"
                else:
                    title = self.rng.choice(["UPDATED: ", "Update: ", "LIVE UPDATES: "]) + head0
                self.add(truth, o["name"], origin, title, url0, url0 + "#update-" + self.code(3), t0 + datetime.timedelta(minutes=self.rng.randint(30, 300)),
                         topic, family, differs)
            elif mode == "fb":
                target = url0 + ("&" if "?" in url0 else "?") + "fbclid=IwAR" + self.code(40, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
                url = "https://l.facebook.com/l.php?u=" + urllib.parse.quote(target, safe="") + "&h=AT" + self.code(30, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
                self.add(truth, f"{o['name']} on Facebook", "fb", head0, url, "fb-" + self.code(15), t, topic, family, differs)
            elif mode == "newsletter":
                url = (url0 + ("&" if "?" in url0 else "?") + f"utm_source=newsletter&utm_medium=email&utm_campaign=briefly-{t0:%Y%m%d}"
                       + f"&mc_cid={self.hexcode(10)}&mc_eid={self.hexcode(10)}")
                tn = (t0 + datetime.timedelta(days=1)).replace(hour=6, minute=self.rng.randint(0, 20))
                self.add(truth, "Briefly newsletter", "newsletter", base, url, "briefly-" + self.code(10), tn, topic, family, differs)
            elif mode == "second":
                # A second feed of the same outlet: the same page, another fragment (BBC's #0/#3).
                if o["url"] == "nbs":
                    self.add(truth, "NBS News - Top stories", origin, head0, url0 + "#3", url0 + "#3", t0 + datetime.timedelta(minutes=self.rng.randint(0, 40)),
                             topic, family, differs)
                else:
                    url = url0.replace("https://", "http://", 1) if self.rng.random() < 0.5 else url0 + "#comments"
                    self.add(truth, f"{o['name']} - {topic.title()}", origin, head0, url, url0 + "?feed=2", t, topic, family, differs)
            elif mode == "ampcache":
                p = urllib.parse.urlsplit(url0)
                if self.rng.random() < 0.5:
                    url = f"https://www.google.com/amp/s/{p.netloc}{p.path.rstrip('/')}/amp"
                else:
                    url = f"https://{p.netloc.replace('.', '-')}.cdn.ampproject.org/c/s/{p.netloc}{p.path}?amp=1"
                self.add(truth, "Discover", "ampcache", head0, url, "discover-" + self.code(10), t, topic, family, differs)
        # The origin's own first item on NBS carries the #0 fragment the feed really has.
        if o["url"] == "nbs":
            first = next(i for i in self.items if i["truth"] == truth)
            first["url"] = first["url"] + "#0"
        return truth


def copies(rng, weights):
    ks = list(range(len(weights)))
    return rng.choices(ks, weights=weights)[0]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "Fixtures", "stories", "corpus.json")
    # Another seed draws another corpus from the same stories (outlets, copies, delays): the
    # thresholds were checked on several, the fixture is seed 2026.
    g = Gen(int(sys.argv[2]) if len(sys.argv) > 2 else 2026)
    rng = g.rng
    big = [4, 6, 10, 12, 14, 14, 12, 9, 7, 5, 4, 3]
    for (topic, day, hour, versions) in MAJOR:
        g.story(topic, day, hour, versions, copies(rng, big))
    for (topic, day, hour, versions) in FOLLOWUPS:
        # A follow-up travels less far than the story it follows.
        g.story(topic, day, hour, versions, copies(rng, [16, 22, 22, 16, 12, 7, 5]), family="follow-up", differs="event")
    for (topic, day, hour, versions) in FOREIGN:
        origin = {"R": "lequotidien", "G": "lequotidien", "B": "tagesblick", "E": "diario"}.get(versions[0][0], "nippon")
        twin = {"lequotidien": "infomatin", "tagesblick": "rheinpost", "diario": "lavoz", "nippon": "tokyonow"}[origin]
        truth = g.story(topic, day, hour, versions[:1], 0, origin=origin)
        # The second outlet's version of the same report.
        t = g.when(day, hour + 1)
        u = g.url_for(twin, versions[1], topic, t) + "?utm_source=rss"
        g.add(truth, OUTLETS[twin]["name"], twin, versions[1], u, u, t, topic, edit="light")
    for (topic, headline) in SINGLES:
        day = rng.randint(0, 20)
        org = rng.choice(ORIGINS.get(topic, ORIGINS["world"]))
        g.story(topic, day, rng.randint(6, 21), [headline], copies(rng, [80, 15, 5]), origin=org, linkers=["mobile", "gn", "second"], republish=False)
    fam = []
    fam += sports_games(rng) + markets(rng) + earnings(rng) + companies(rng) + places(rng)
    for (family, differs, topic, day, hour, versions) in fam:
        n = copies(rng, [14, 22, 24, 18, 10, 6, 3, 2, 1])
        g.story(topic, day, hour, versions, n, family=family, differs=differs)
    for (family, differs, topic, day, hour, versions, origin) in recurring(rng):
        n = copies(rng, [45, 40, 15])
        g.story(topic, day, hour, versions, n, family=family, differs=differs, origin=origin, linkers=["gn", "mobile", "newsroll", "second"], republish=False)
    # Generic headlines that different outlets run on the same day about different things.
    for day in (3, 10, 17):
        for origin in ("channel9", "springfield", "northern"):
            g.story("local", day, 7, ["Traffic and weather update for the morning commute"], 0, family="generic", differs="outlet", origin=origin)
    g.items.sort(key=lambda i: (i["fetched"], i["id"]))
    doc = {
        "about": "Feed items labelled with the story each tells (truth). Generated by Tools/stories-corpus/generate.py; see NOTES.md.",
        "items": g.items,
    }
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        # One item a line: the file reads and diffs as a feed does.
        f.write('{"about": ' + json.dumps(doc["about"], ensure_ascii=False) + ',\n"items": [\n')
        f.write(",\n".join(json.dumps(i, ensure_ascii=False, separators=(",", ":")) for i in g.items))
        f.write("\n]}\n")
    stories = {i["truth"] for i in g.items}
    sizes = {}
    for i in g.items:
        sizes[i["truth"]] = sizes.get(i["truth"], 0) + 1
    pairs = sum(n * (n - 1) // 2 for n in sizes.values())
    edits = {}
    for i in g.items:
        edits[i["edit"]] = edits.get(i["edit"], 0) + 1
    print(f"{len(g.items)} items, {len(stories)} stories, {pairs} same-story pairs, largest {max(sizes.values())}, headlines {edits}", file=sys.stderr)


if __name__ == "__main__":
    main()
