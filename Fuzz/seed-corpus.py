#!/usr/bin/env python3
"""Writes the seed corpora under Fuzz/corpus/<target>/ from the repository's fixtures
(Tests/Fixtures, Sources-config/recordings, Sources-config/examples) plus small hand-written
edge cases. Run it again after fixtures change; the output is committed.

Usage: python3 Fuzz/seed-corpus.py
"""
import base64
import hashlib
import json
import os
import re
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Fuzz", "corpus")
MAX = 1 << 20


def files(folder, *suffixes):
    base = os.path.join(ROOT, folder)
    for dirpath, _, names in sorted(os.walk(base)):
        for n in sorted(names):
            if not suffixes or n.endswith(suffixes):
                yield os.path.join(dirpath, n)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def recordings():
    for p in files("Sources-config/recordings", ".json"):
        yield os.path.basename(p), json.loads(read(p))


def body(rec):
    if "body" in rec:
        return rec["body"].encode()
    if "body_base64" in rec:
        return base64.b64decode(rec["body_base64"])
    if "json" in rec:
        return json.dumps(rec["json"], ensure_ascii=False).encode()
    return b""


corpora = {}


def add(target, data, name=None):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX:
        return
    name = name or hashlib.sha1(data).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9._-]", "_", name)
    corpora.setdefault(target, {})[name] = data


# json: every JSON file in the repository, and edge cases of the grammar.
for folder in ["Tests/Fixtures", "Sources-config"]:
    for p in files(folder, ".json"):
        add("json", read(p), os.path.relpath(p, ROOT).replace("/", "_"))
for i, s in enumerate([
    "null", "true", "false", "0", "-0", "-0.0e+0", "1e400", "-1E-400", "123456789012345678901234567890",
    '""', '"\\u0000\\ud83d\\ude00\\n\\t\\"\\\\\\/\\b\\f\\r"', '"\\ud800"', '"\xc3\xa9\xe2\x82\xac"',
    "[]", "{}", "[[[[[[[[]]]]]]]]", '{"a":1,"a":2}', '{"":{"":[null,true,{}]}}', " \t\n\r[1 , 2 ]\n",
    "[1,]", '{"a" 1}', "01", "1.", ".5", "tru", '"\x01"', "\xef\xbb\xbf{}", "[" * 600 + "]" * 600,
]):
    add("json", s, f"edge-{i:02d}")

# config: the example configs and the demo, and a few odd shapes.
for p in list(files("Sources-config/examples", ".json")) + [os.path.join(ROOT, "Sources-config/demo.json")]:
    add("config", read(p), os.path.relpath(p, ROOT).replace("/", "_"))
for i, s in enumerate([
    "{}", "[]", '{"sources":[]}', '{"sources":[{}]}', '{"sources":[{"name":"a","type":"feed"}]}',
    '{"sources":[{"name":"a","type":"feed","url":"${URL:-https://h/x}","interval":"1h30m","timeout":"250ms"}],"sinks":[{"type":"jsonl","path":"/dev/null"}]}',
    '{"http":{"concurrency":4096,"per_host":9999,"max_body":"16MiB","replay":"r"},"state":{"retention":"12h","lock_timeout":"1e300"},"sources":[]}',
    '{"defaults":{"interval":"2w","jitter":"1d","retries":-1},"sources":[{"name":"x","type":"json","url":"https://h/","first_run":3,"quota":{"requests":1,"per":"0s"}}]}',
    '{"$comment":"x","sources":[{"name":"UPPER","type":"fed","${":1}]}',
    '{"sources":[{"name":"c","type":"channels","url":"file:x.m3u","format":"m3u","countries":["RUS"],"categories":[""]}]}',
    '{"sources":[{"name":"e","type":"exec","command":[],"env":{"A":1}}]}',
]):
    add("config", s, f"edge-{i:02d}")

# feed-xml: the feed fixtures (XML and HTML), the feed bodies of the recordings, edge cases.
for p in files("Tests/Fixtures/feed", ".xml", ".html"):
    add("feed-xml", read(p), os.path.basename(p))
for name, rec in recordings():
    if name.startswith("feed-") and not name.startswith("feed-json"):
        add("feed-xml", body(rec), "recording-" + name)
for i, s in enumerate([
    '<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><item><title>a &amp; b</title><guid>1</guid><pubDate>Sun, 29 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>',
    '<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>x</id><title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><b>B</b></div></title><updated>2026-11-29T10:00:00Z</updated><link href="/p" xml:base="https://h/"/></entry></feed>',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><item rdf:about="https://h/1"><title>1</title></item></rdf:RDF>',
    '<rss><channel><item><description><![CDATA[<p>x</p>]]></description><media:thumbnail url="https://h/i.png"/><enclosure url="a.mp3" length="12" type="audio/mpeg"/></item></channel></rss>',
    "  \n<?xml version=\"1.0\" encoding=\"windows-1251\"?><rss><channel><item><title>\xcf\xf0\xe8</title></item></channel></rss>",
    '<!DOCTYPE rss [<!ENTITY e SYSTEM "file:///etc/passwd">]><rss><channel><item><title>&e;</title></item></channel></rss>',
    "<rss>" + "<a>" * 200 + "</a>" * 200 + "</rss>",
    "<html><head><link rel=\"alternate\" type=\"application/rss+xml\" href=\"/feed\"></head></html>",
    "<feed>", "<", "\xef\xbb\xbf<rss/>", "<rss><channel><item>&nbsp;</item></channel></rss>",
]):
    add("feed-xml", s, f"edge-{i:02d}")

# json-feed: the JSON Feed fixture and recording, edge cases of its fields.
add("json-feed", read(os.path.join(ROOT, "Tests/Fixtures/feed/jsonfeed-1.1.json")), "jsonfeed-1.1.json")
for name, rec in recordings():
    if name.startswith("feed-json"):
        add("json-feed", body(rec), "recording-" + name)
for i, s in enumerate([
    '{"version":"https://jsonfeed.org/version/1.1","items":[]}',
    '{"version":"https://jsonfeed.org/version/1","title":1,"author":{"name":"A"},"items":[{"id":7,"content_html":"<p>x</p>","date_published":"2026-11-29T10:00:00+02:00","tags":"one"}]}',
    '{"version":"http://jsonfeed.org/version/1.1","items":[{"id":"","url":"/a","external_url":"https://e/","attachments":[{"url":"a.mp3","mime_type":"audio/mpeg","size_in_bytes":"12"},{"url":"i.png","mime_type":"image/png"}],"authors":[{"name":"x"},{"name":"x"}]}]}',
    '{"version":"https://jsonfeed.org/version/1.1","items":[{"id":"1","date_modified":"1456536694","tags":[1,"a",null]}]}',
    '{"version":2}', '{"items":{}}', "[]",
]):
    add("json-feed", s, f"edge-{i:02d}")

# m3u: the playlists and the M3U recording, edge cases of #EXTINF.
for p in files("Tests/Fixtures/channels", ".m3u"):
    add("m3u", read(p), os.path.basename(p))
for name, rec in recordings():
    b = body(rec)
    if b.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"#EXTM3U"):
        add("m3u", b, "recording-" + name)
for i, s in enumerate([
    "#EXTM3U\n#EXTINF:-1 tvg-id=\"A.uk@HD\" tvg-country=\"UK;FR\" group-title=\"News;Kids\",A\nhttp://h/a.m3u8|Referer=https%3A%2F%2Fr%2F&User-Agent=x\n",
    "#EXTM3U\r\n#EXTINF:abc,Bad\r\nhttp://h/b\r\n#EXTINF:-1 tvg-name=\"unterminated,\rhttp://c\r",
    "#EXTM3U\n#EXTVLCOPT:http-referrer=https://r/\n#EXTVLCOPT:http-user-agent=UA\n#EXTGRP:G\n#EXTINF:0,\nrelative/path.m3u8\n",
    "#EXTM3U\n#EXTINF:-1 a=b c=\"d\" ,Name, with comma\n\n#EXTINF:-1,No URL\n",
    "\xef\xbb\xbf #EXTM3U\nhttp://bare/url\n#extinf:-1,lower\nhttp://x\n", "#EXTM3U", "",
]):
    add("m3u", s, f"edge-{i:02d}")

# channels-json: the channel list and iptv-org fixtures and recordings, edge cases.
for p in files("Tests/Fixtures/channels", ".json"):
    add("channels-json", read(p), os.path.basename(p))
for name, rec in recordings():
    if name.startswith(("channels-", "iptv-")):
        b = body(rec)
        if not b.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"#EXTM3U"):
            add("channels-json", b, "recording-" + name)
for i, s in enumerate([
    '{"channel":[{"key":1,"name":"A","videoUrl":"http://a","videoUrlArr":["http://a","http://b"],"isLocked":"1","priority":"7","tag1":"#news","tag2":"##"}]}',
    '{"channel":[{"key":"x","img":" i.png ","priority":1e3}]}',
    '[{"id":"A.uk","name":"A","country":"uk","categories":["news"],"languages":["eng"],"alt_names":["a"],"is_nsfw":false,"launched":"2001-01-01"}]',
    '[{"channel":"A.uk","url":"http://a","http_referrer":"r","user_agent":"u","quality":"720p"},{"channel":null,"url":"x"}]',
    "[]", "{}", '{"channel":{}}', "\xef\xbb\xbf[]",
]):
    add("channels-json", s, f"edge-{i:02d}")

# dates: every date the fixtures hold, and the forms and edges the parsers take.
date_re = re.compile(rb"<(?:pubDate|dc:date|updated|published|lastBuildDate)>([^<]{1,60})<|\"(?:date_published|date_modified|launched|closed|publishedAt)\"\s*:\s*\"([^\"]{1,60})\"")
for p in list(files("Tests/Fixtures")) + list(files("Sources-config/recordings")):
    for m in date_re.finditer(read(p)):
        add("dates", (m.group(1) or m.group(2)).replace(b"\\/", b"/"))
for s in [
    "2026-11-29T10:00:00Z", "2026-11-29t10:00:00.123456+02:00", "2026-11-29 10:00", "2026-11-29", "0000-01-01T00:00:00-23:59",
    "9999-12-31T23:59:60.999Z", "2026-02-31T25:61:61Z", "Sun, 29 Nov 2026 10:00:00 GMT", "29 Nov 26 10:00 +0200", "Mon, 1 Jan 70 00:00 EST",
    "1 Dec 1999 23:59:59 -1259", "Tue, 31 Feb 2026 10:00:00 XYZ", "1456536694", "1456536694000", "0", "  1700000000  ", "-1",
]:
    add("dates", s)

# sizes-durations: the units of both, combined and odd forms, JSON numbers.
for s in [
    "0", "512", "512KiB", "16MiB", "1GiB", "1 KB", "2.5MB", "3GB", "10B", " 7 KiB ", "-1KiB", "1e3KiB", "KiB",
    "250ms", "20s", "15m", "2h", "1d", "1w", "1h30m", "0.5s", "1.5h2m", "1x", "h", "1..2s", "3600", "0.25", "\"1h\"", "900", "-5",
]:
    add("sizes-durations", s)

# keypath: the paths configs and adapters use, quoted keys and escapes, malformed ones.
for s in [
    "", "a", "feed.entry", "weather[0].description", "rain.3h", "items[12].snippet.title", '["a.b"].c', '[""]', '["x\\"y"][0]',
    "[0][1][2]", "a..b", "a.", ".a", "[x]", "[-1]", "[", '["a', "a]b", 'a"b', "[0]a", "\u00e9t\u00e9.\u4e2d\u6587",
]:
    add("keypath", s)
for p in files("Sources-config/examples", ".json"):
    for m in re.finditer(rb"\"(?:items_path|[a-z_]+_path|path)\"\s*:\s*\"([^\"]{1,80})\"", read(p)):
        add("keypath", m.group(1))

# html-text: markup and entities as APIs and feeds send them.
for s in [
    "a &amp; b &lt;c&gt; &#39;d&#39; &#x4E2D;&#X6587; &nbsp;&hellip;&unknown; &#0; &#x110000; &#xD800; &",
    "<p>One</p><p>Two<br/>three</p><script>var x = '<p>';</script><style>p{}</style><!-- c --><li>item",
    "Vec<T> and <Sendable> and a < b > c", "<b>Bold</b> <a href=\"x\">link</a> <em>e</em>", "line\r\nline\rline\n\n\n\nend",
    "jane@example.org (Jane Doe)", "&amp;amp;lt;p&amp;amp;gt;", "<", "&", "<div\n>x</div\n>", "\u00a0\u3000\u2028",
]:
    add("html-text", s)
for p in files("Tests/Fixtures/youtube.search", ".json"):
    for m in re.finditer(rb"\"(?:title|description)\"\s*:\s*\"([^\"]{1,200})\"", read(p)):
        add("html-text", m.group(1))

# article-html: web pages (the fulltext and html fixtures) and hostile markup for the sanitizer.
for p in list(files("Tests/Fixtures/fulltext", ".html")) + list(files("Tests/Fixtures/html", ".html")) + list(files("Tests/Fixtures/article", ".html")):
    add("article-html", read(p))
for s in [
    "<p>a<script>alert(1)</script><ScRiPt>x</sCrIpT><img src=x onerror=alert(1)><a href='jav&#x61;script:alert(1)'>j</a></p>",
    "<svg><script>alert(1)</script><a xlink:href='javascript:alert(1)'>s</a></svg><math><mi href='javascript:1'>m</mi></math>",
    "<a href=' javascript:alert(1)'>sp</a><a href='java\tscript:x'>t</a><a href='data:text/html,<script>x</script>'>d</a><img src='//evil.example/x.png'>",
    "<div><p><table><tr><td><p>cell<iframe src=http://e></iframe><form><input value=1></form></td></tr></table><object data=x></object><embed src=y>",
    "<!DOCTYPE x [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'>]><p>&b;&b;&b;</p>",
    "<p style='x:expression(alert(1))' onclick=alert(1) class=x id=y>text</p><style>p{}</style><noscript><p>ns</p></noscript><template><p>t</p></template>",
    "<base href='javascript:alert(1)//'><a href='rel'>rel</a><img srcset='a.png 1x, b.png 2x' data-src='https://e/l.png'>",
    "<" + "div>" * 5000 + "deep" + "</div>" * 10,
    "<p>" + "<b><i>" * 300 + "nested inline" + "</i></b>" * 300 + "</p>",
]:
    add("article-html", s)

# redactor: URLs with and without secrets, user info, fragments, and error text holding URLs.
for s in [
    "https://api.example.org/v1/search?q=swift&key=SECRET", "https://user:pass@h.example/p?token=T#frag", "https://h/p?%6Bey=x&KEY=y&sig&=v",
    "http://h/?a=1&&b=2&api_key=", "curl: (6) Could not resolve host: 'https://h/x?appid=1', retrying.", "no url here", "://",
    "https://h/p#?key=not-a-query", "file:///tmp/x?password=p", "https://h/p?signature=a=b=c;",
]:
    add("redactor", s)
for _, rec in recordings():
    add("redactor", rec.get("url", ""))

# recording: every recording, and the three body forms.
for p in files("Sources-config/recordings", ".json"):
    add("recording", read(p), os.path.basename(p))
for i, s in enumerate([
    '{"url":"https://h/p?key=x","headers":[["Authorization","Bearer t"],["Content-Type","text/plain"]],"body":"hi"}',
    '{"method":"post","url":"https://h/","status":503,"body_base64":"/+7/AA=="}',
    '{"url":"https://h/","json":{"a":[1,2,{"b":null}]},"status":2.0}', '{"url":"x","body_base64":"not base64!"}', '{"url":1}', "{}",
]):
    add("recording", s, f"edge-{i:02d}")

if os.path.isdir(OUT):
    shutil.rmtree(OUT)
for target, entries in sorted(corpora.items()):
    d = os.path.join(OUT, target)
    os.makedirs(d)
    for name, data in sorted(entries.items()):
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    print(f"{target}: {len(entries)} files, {sum(len(v) for v in entries.values())} bytes")
