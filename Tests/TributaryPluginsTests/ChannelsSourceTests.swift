import Foundation
import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit
@testable import TributaryPlugins
import TributaryTestSupport

/// The `channels` source in process: its three formats from the fixtures in
/// Tests/Fixtures/channels, answered by the replay transport.
final class ChannelsSourceTests: XCTestCase {
    static func fixture(_ name: String) -> String {
        let path = packageRoot + "/Tests/Fixtures/channels/" + name
        return String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }

    let listURL = "https://tv.example.ru/api/channels.json"

    func strings(_ v: JSONValue?) -> [String]? { v?.arrayValue?.compactMap(\.stringValue) }

    // MARK: the {"channel":[...]} list

    func testListFormatMapsTheOriginalAppsFieldsSortedByPriority() async throws {
        let r = try await plugins.fetch(#"{"name":"tv","type":"channels","url":"\#(listURL)"}"#, [(listURL, 200, Self.fixture("list.json"))])
        XCTAssertNil(r.error)
        // Priority descending; Муз-ТВ and RU.TV tie and keep document order; the locked one stays.
        XCTAssertEqual(r.items.map(\.id), ["channel:77777", "channel:1410", "channel:101", "channel:24", "channel:3021"])
        let muz = r.items[0]
        XCTAssertEqual(muz.kind, "channel")
        XCTAssertEqual(muz.type, "channels")
        XCTAssertEqual(muz.title, "Муз-ТВ", "trimmed, the trailing newline gone")
        XCTAssertEqual(muz.tags, ["#развлекательный", "#музыкальный"])
        XCTAssertEqual(muz.url, "https://edge1.tv.example.ru/hls/muztv/index.m3u8")
        XCTAssertEqual(muz.image, "https://tv.example.ru/static/img/muztv.png")
        XCTAssertEqual(strings(muz.data["stream_urls"]), ["https://edge1.tv.example.ru/hls/muztv/index.m3u8", "rtmp://live.tv.example.ru/muztv"], "videoUrl first, duplicates and empty strings dropped")
        XCTAssertEqual(muz.data["priority"], .number(JSONNumber(text: "1000000077777")), "a large integer kept exactly")
        XCTAssertEqual(muz.data["locked"], .bool(false))
        XCTAssertEqual(strings(muz.data["categories"]), ["развлекательный", "музыкальный"])

        let perviy = r.items[2]
        XCTAssertEqual(strings(perviy.data["stream_urls"]), ["https://edge1.tv.example.ru/hls/perviy/index.m3u8", "https://edge2.tv.example.ru/hls/perviy/index.m3u8"])
        let r24 = r.items[3]
        XCTAssertEqual(r24.id, "channel:24", "a key written as a string works too")
        XCTAssertEqual(r24.tags, ["#новости"], "empty tag2 skipped")
        XCTAssertEqual(r24.image, "https://tv.example.ru/static/img/rossiya24.png", "empty img_url falls back to img")
        let kino = r.items[4]
        XCTAssertEqual(kino.url, "https://edge1.tv.example.ru/hls/kinohit/index.m3u8", "empty videoUrl: the first of videoUrlArr")
        XCTAssertNil(kino.image, "img \"kinohit.png\" is not an absolute URL")
        XCTAssertEqual(kino.data["locked"], .bool(true))
        let schema = try SchemaValidator.itemSchema()
        for item in r.items { XCTAssertEqual(schema.validate(item.jsonValue()), [], item.id) }
    }

    func testSkipLockedCategoriesAndSortOptions() async throws {
        let body = Self.fixture("list.json")
        let locked = try await plugins.fetch(#"{"name":"tv","type":"channels","url":"\#(listURL)","skip_locked":true}"#, [(listURL, 200, body)])
        XCTAssertEqual(locked.items.map(\.id), ["channel:77777", "channel:1410", "channel:101", "channel:24"])
        let music = try await plugins.fetch(##"{"name":"tv","type":"channels","url":"\##(listURL)","categories":["#МУЗЫКАЛЬНЫЙ"]}"##, [(listURL, 200, body)])
        XCTAssertEqual(music.items.map(\.id), ["channel:77777", "channel:1410"], "hashtags match with or without #, in any case")
        let news = try await plugins.fetch(#"{"name":"tv","type":"channels","url":"\#(listURL)","categories":["новости","кино"],"sort":"source"}"#, [(listURL, 200, body)])
        XCTAssertEqual(news.items.map(\.id), ["channel:24", "channel:3021"])
        let byName = try await plugins.fetch(#"{"name":"tv","type":"channels","url":"\#(listURL)","sort":"name"}"#, [(listURL, 200, body)])
        XCTAssertEqual(byName.items.map(\.title), ["RU.TV", "Кинохит HD", "Муз-ТВ", "Первый канал", "Россия 24"])
        let noCountry = try await plugins.fetch(#"{"name":"tv","type":"channels","url":"\#(listURL)","countries":["RU"]}"#, [(listURL, 200, body)])
        XCTAssertEqual(noCountry.items.count, 0, "the list has no countries, so a country filter keeps nothing")
        XCTAssertNil(noCountry.error)
    }

    func testListWithoutPriorityAndDuplicateKeys() async throws {
        let body = #"""
        {"channel":[
          {"key":1,"name":"A","videoUrl":"https://e.ru/a1.m3u8"},
          {"key":2,"name":"","priority":"5","videoUrl":"https://e.ru/b.m3u8"},
          {"key":1,"name":"A again","videoUrlArr":["https://e.ru/a2.m3u8"]},
          {"key":3,"name":"C\n  line two","priority":7}
        ]}
        """#
        let r = try await plugins.fetch(#"{"name":"tv","type":"channels","url":"\#(listURL)"}"#, [(listURL, 200, body)])
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map(\.id), ["channel:3", "channel:2", "channel:1"], "no priority sorts last; a numeric string priority counts")
        XCTAssertEqual(r.items[0].title, "C line two", "embedded newlines collapse to one line")
        XCTAssertEqual(r.items[1].title, "2", "an empty name falls back to the key")
        XCTAssertEqual(r.items[2].title, "A")
        XCTAssertEqual(strings(r.items[2].data["stream_urls"]), ["https://e.ru/a1.m3u8", "https://e.ru/a2.m3u8"], "a repeated key adds its streams to the first")
        XCTAssertNil(r.items[0].url)
        XCTAssertNil(r.items[0].data["stream_urls"])
    }

    func testListWrongTypesNameTheKeyPath() async throws {
        let cases: [(String, String)] = [
            (#"{"channel":{"key":1}}"#, "channel: expected array, found object"),
            (#"{"channels":[]}"#, "channel: missing, expected array"),
            (#"{"channel":[{"key":1,"name":"ok"},{"key":2,"name":42}]}"#, "channel[1].name: expected string, found number"),
            (#"{"channel":[{"key":1,"name":"x","videoUrlArr":"https://e.ru/a.m3u8"}]}"#, "channel[0].videoUrlArr: expected array, found string"),
            (#"{"channel":[{"key":1,"name":"x","videoUrlArr":["https://e.ru/a.m3u8",7]}]}"#, "channel[0].videoUrlArr[1]: expected string, found number"),
            (#"{"channel":[{"key":true,"name":"x"}]}"#, "channel[0].key: expected string or number, found bool"),
            (#"{"channel":[{"name":"x"}]}"#, "channel[0].key: missing, expected string or number"),
            (#"{"channel":[{"key":" ","name":"x"}]}"#, "channel[0].key: expected a non-empty identifier, found empty string"),
            (#"{"channel":[{"key":1,"name":"x","isLocked":"perhaps"}]}"#, "channel[0].isLocked: expected bool (true/false, 1/0), found string"),
            (#"{"channel":[{"key":1,"name":"x","priority":1.5}]}"#, "channel[0].priority: expected integer, found number"),
            (##"{"channel":[{"key":1,"name":"x","tag1":["#a"]}]}"##, "channel[0].tag1: expected string, found array"),
            (#"{"channel":["just a name"]}"#, "channel[0]: expected object, found string"),
        ]
        for (body, expected) in cases {
            let r = try await plugins.fetch(#"{"name":"tv","type":"channels","url":"\#(listURL)","format":"list"}"#, [(listURL, 200, body)])
            XCTAssertEqual(r.error, "GET \(listURL): \(expected)", body)
            XCTAssertEqual(r.items.count, 0)
        }
        let array = try await plugins.fetch(#"{"name":"tv","type":"channels","url":"\#(listURL)","format":"list"}"#, [(listURL, 200, "[]")])
        XCTAssertEqual(array.error, "GET \(listURL): (document): expected object, found array")
    }

    // MARK: iptv-org

    let channelsURL = "https://iptv-org.github.io/api/channels.json"
    let streamsURL = "https://iptv-org.github.io/api/streams.json"

    func testIPTVOrgChannelsJoinedWithStreams() async throws {
        let r = try await plugins.fetch(#"{"name":"org","type":"channels","url":"\#(channelsURL)","streams_url":"\#(streamsURL)"}"#,
                          [(channelsURL, 200, Self.fixture("iptv-org-channels.json")), (streamsURL, 200, Self.fixture("iptv-org-streams.json"))])
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map(\.id), ["channel:1HDMusicTelevision.ru", "channel:2x2.ru", "channel:360deg.ru", "channel:AnhuiTV.cn", "channel:13thStreet.au", "channel:100AutoMotoTV.bg"], "document order")
        let twoByTwo = r.items[1]
        XCTAssertEqual(twoByTwo.title, "2x2")
        XCTAssertEqual(twoByTwo.url, "https://bl.uma.media/live/317805/HLS/4614144_3,2883584_2,1153024_1/1613019214/3754dbee773afc02014172ca26d3bb79/playlist.m3u8")
        XCTAssertEqual(twoByTwo.image, "https://i.imgur.com/xm9jF1K.png")
        XCTAssertEqual(twoByTwo.tags, ["animation", "entertainment"])
        XCTAssertEqual(twoByTwo.data["referrer"], .string("https://2x2tv.ru/"))
        XCTAssertEqual(twoByTwo.data["user_agent"]?.stringValue?.hasPrefix("Mozilla/5.0 (Windows NT 10.0"), true)
        XCTAssertEqual(twoByTwo.data["quality"], .string("720p"))
        XCTAssertEqual(twoByTwo.data["country"], .string("RU"))
        XCTAssertEqual(strings(twoByTwo.data["languages"]), ["rus"])
        XCTAssertEqual(strings(twoByTwo.data["alt_names"]), ["2х2"])
        XCTAssertEqual(strings(twoByTwo.data["owners"]), ["Gazprom-Media"])
        XCTAssertEqual(twoByTwo.data["is_nsfw"], .bool(false))
        XCTAssertEqual(twoByTwo.data["launched"], .string("1989-12-31"))
        let deg = r.items[2]
        XCTAssertEqual(strings(deg.data["stream_urls"])?.count, 3, "three streams of one channel, the unmapped one in between skipped")
        XCTAssertNil(deg.image, "logo null")
        XCTAssertEqual(deg.data["subdivision"], .string("RU-MOS"))
        let anhui = r.items[3]
        XCTAssertNil(anhui.url, "no stream for this channel")
        XCTAssertNil(anhui.data["stream_urls"])
        XCTAssertEqual(strings(anhui.data["alt_names"]), ["安徽卫视"])
        XCTAssertEqual(anhui.data["network"], .string("Anhui"))
        let street = r.items[4]
        XCTAssertEqual(street.data["closed"], .string("2019-12-31"))
        XCTAssertEqual(street.data["replaced_by"], .string("Sleuth.au"))
        XCTAssertNil(street.data["network"], "null fields are left out")
        let moto = r.items[5]
        XCTAssertEqual(moto.url, "http://100automoto.tv:1935/bgtv1/autotv/playlist.m3u8")
        XCTAssertNil(moto.image, "the current channels.json has no logo")
        XCTAssertNil(moto.data["languages"])
    }

    func testIPTVOrgFiltersAndOlderStreamsShape() async throws {
        let streams = #"[{"channel":"2x2.ru","url":"https://e.ru/2x2.m3u8","http_referrer":"https://old.example/","user_agent":null,"status":"online","width":1280,"height":720}]"#
        let r = try await plugins.fetch(#"{"name":"org","type":"channels","url":"\#(channelsURL)","streams_url":"\#(streamsURL)","countries":["ru","cn"],"categories":["Music","ANIMATION","general"],"sort":"name"}"#,
                          [(channelsURL, 200, Self.fixture("iptv-org-channels.json")), (streamsURL, 200, streams)])
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map(\.title), ["1HD Music Television", "2x2", "360°", "Anhui TV"])
        XCTAssertEqual(r.items[1].data["referrer"], .string("https://old.example/"), "http_referrer of the older streams.json")
    }

    func testIPTVOrgWrongTypesAndStreamErrors() async throws {
        let src = #"{"name":"org","type":"channels","url":"\#(channelsURL)","streams_url":"\#(streamsURL)","format":"iptv-org"}"#
        let cases: [(String, String, String)] = [
            (#"[{"id":"A.ru","name":12}]"#, "[]", "GET \(channelsURL): [0].name: expected string, found number"),
            (#"[{"id":"A.ru","name":"A","categories":"news"}]"#, "[]", "GET \(channelsURL): [0].categories: expected array, found string"),
            (#"[{"id":"A.ru","name":"A","is_nsfw":"no"}]"#, "[]", "GET \(channelsURL): [0].is_nsfw: expected bool, found string"),
            (#"{"channels":[]}"#, "[]", "GET \(channelsURL): (document): expected array, found object"),
            (#"[{"id":"A.ru","name":"A"}]"#, #"[{"channel":"A.ru","url":"https://e.ru/a.m3u8"},{"channel":"A.ru"}]"#, "GET \(streamsURL): [1].url: missing, expected string"),
            (#"[{"id":"A.ru","name":"A"}]"#, #"{"streams":[]}"#, "GET \(streamsURL): (document): expected array, found object"),
        ]
        for (channels, streams, expected) in cases {
            let r = try await plugins.fetch(src, [(channelsURL, 200, channels), (streamsURL, 200, streams)])
            XCTAssertEqual(r.error, expected)
        }
        let down = try await plugins.fetch(src, [(channelsURL, 200, #"[{"id":"A.ru","name":"A"}]"#), (streamsURL, 503, "<html><body>Service Unavailable</body></html>")])
        XCTAssertEqual(down.error, "GET \(streamsURL): HTTP 503 Service Unavailable", "a failed join fails the source")
        XCTAssertEqual(down.items.count, 0)
        let missing = try await plugins.fetch(src, [(channelsURL, 404, "Not Found")])
        XCTAssertEqual(missing.error, "GET \(channelsURL): HTTP 404 Not Found: Not Found")
    }

    // MARK: M3U

    let playlistURL = "https://tv.example.ru/playlist.m3u8"

    func testM3UPlaylistWithCRLFVLCOptionsPipeHeadersAndQuotedCommas() async throws {
        let r = try await plugins.fetch(#"{"name":"pl","type":"channels","url":"\#(playlistURL)"}"#, [(playlistURL, 200, Self.fixture("playlist.m3u"))])
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map(\.id), ["channel:Perviykanal.ru@SD", "channel:MuzTV.ru", "channel:m3u-8b885e0e48be43a5", "channel:m3u-e578c6f764f0cb6d", "channel:2x2.ru"])
        let perviy = r.items[0]
        XCTAssertEqual(perviy.title, "Первый канал (576p)", "no \\r left from the CRLF")
        XCTAssertEqual(perviy.url, "https://edge1.tv.example.ru/hls/perviy/index.m3u8")
        XCTAssertEqual(perviy.data["country"], .string("RU"), "from the iptv-org style tvg-id")
        XCTAssertEqual(perviy.data["group"], .string("General"))
        let muz = r.items[1]
        XCTAssertEqual(muz.title, "Муз-ТВ", "the comma inside tvg-name does not end the attributes")
        XCTAssertEqual(muz.tags, ["Music", "Entertainment"])
        XCTAssertEqual(muz.data["referrer"], .string("https://muz-tv.ru/"))
        XCTAssertEqual(muz.data["user_agent"], .string("Mozilla/5.0 (SMART-TV; Linux; Tizen 5.0)"))
        XCTAssertEqual(strings(muz.data["stream_urls"]), ["https://edge1.tv.example.ru/hls/muztv/index.m3u8", "https://edge3.tv.example.ru/hls/muztv/index.m3u8"], "the same tvg-id twice is one channel with two streams")
        let r24 = r.items[2]
        XCTAssertEqual(r24.title, "Россия 24, новости", "a comma in the name stays")
        XCTAssertEqual(r24.url, "https://edge2.tv.example.ru/hls/rossiya24/index.m3u8", "the |Referer= suffix is not part of the URL")
        XCTAssertEqual(r24.data["referrer"], .string("https://smotrim.ru/"))
        XCTAssertEqual(r24.data["user_agent"], .string("Mozilla/5.0 (X11)"), "percent-encoded header values are decoded")
        XCTAssertNil(r24.data["country"])
        let karusel = r.items[3]
        XCTAssertEqual(karusel.title, "rtmp://live.tv.example.ru/karusel", "no name, tvg-name or tvg-id: the stream URL")
        XCTAssertNil(karusel.url, "rtmp is not an http(s) URL")
        XCTAssertEqual(strings(karusel.data["stream_urls"]), ["rtmp://live.tv.example.ru/karusel"])
        let twoByTwo = r.items[4]
        XCTAssertEqual(twoByTwo.url, "http://ott.tv.example.ru/2x2/index.m3u8")
        XCTAssertEqual(twoByTwo.data["country"], .string("RU"))
        XCTAssertEqual(strings(twoByTwo.data["languages"]), ["Russian"])
        let again = try await plugins.fetch(#"{"name":"pl","type":"channels","url":"\#(playlistURL)"}"#, [(playlistURL, 200, Self.fixture("playlist.m3u"))])
        XCTAssertEqual(again.items.map(\.id), r.items.map(\.id), "ids are stable across runs")
    }

    func testMalformedPlaylistLinesAreReportedWithLineNumbers() async throws {
        let r = try await plugins.fetch(#"{"name":"pl","type":"channels","url":"\#(playlistURL)"}"#, [(playlistURL, 200, Self.fixture("playlist-malformed.m3u"))])
        XCTAssertEqual(r.error, "GET \(playlistURL): 5 malformed playlist lines: "
            + "line 4: #EXTINF has no comma before the channel name; "
            + "line 6: #EXTINF attribute tvg-name has an unterminated quote; "
            + "line 8: #EXTINF has no stream URL before the next #EXTINF (line 9); "
            + "line 9: #EXTINF duration \"abc\" is not a number; "
            + "line 14: #EXTINF has no stream URL (the playlist ends)")
        XCTAssertEqual(r.items.map(\.id), ["channel:Good1.ru", "channel:m3u-d41ac5f9341e8daf", "channel:Good2.ru"], "the good entries are still delivered")
        XCTAssertEqual(r.items[1].title, "https://example.ru/bare-stream.m3u8", "a URL line without #EXTINF is a channel of its own")
    }

    func testM3UParserPieces() async {
        guard case .success(let (attrs, title)) = M3UPlaylist.parseInfo(Array(#"-1 tvg-id=Abc.ru tvg-name="A, B" tvg-chno=5 group-title="" catchup="append",Name, with comma"#.utf8)[...]) else { return XCTFail("should parse") }
        XCTAssertEqual(attrs, ["tvg-id": "Abc.ru", "tvg-name": "A, B", "tvg-chno": "5", "catchup": "append"], "unquoted values; empty values left out")
        XCTAssertEqual(title, "Name, with comma")
        guard case .success(let (_, plain)) = M3UPlaylist.parseInfo(Array("10.5,Plain".utf8)[...]) else { return XCTFail("should parse") }
        XCTAssertEqual(plain, "Plain")
        let split = M3UPlaylist.splitHeaders("http://e.ru/a.m3u8|User-Agent=VLC%2F3.0&Referer=http://e.ru/&Origin=x")
        XCTAssertEqual(split.url, "http://e.ru/a.m3u8")
        XCTAssertEqual(split.headers.referrer, "http://e.ru/")
        XCTAssertEqual(split.headers.userAgent, "VLC/3.0")
        // Lone CR line ends, a lower-case directive, tabs, and invalid UTF-8 in a name.
        let old = M3UPlaylist(parsing: Array("#EXTM3U\r#extinf:-1\ttvg-id=\"A.fr\",Cha\u{00EE}ne\r\thttp://e.fr/a.m3u8 \r\r#EXTINF:-1,B".utf8) + [0xFF] + Array("\rhttp://e.fr/b.m3u8".utf8))
        XCTAssertEqual(old.problems, [])
        XCTAssertEqual(old.entries.map(\.line), [2, 5])
        XCTAssertEqual(old.entries.map(\.title), ["Chaîne", "B\u{FFFD}"])
        XCTAssertEqual(old.entries.map(\.url), ["http://e.fr/a.m3u8", "http://e.fr/b.m3u8"])
        XCTAssertEqual(old.entries.first?.attributes, ["tvg-id": "A.fr"])
        XCTAssertEqual(M3UPlaylist.countryOfIPTVOrgID("BBCNews.uk@HD"), "UK")
        XCTAssertNil(M3UPlaylist.countryOfIPTVOrgID("channel42"))
        XCTAssertNil(M3UPlaylist.countryOfIPTVOrgID("Sky.com"))
        XCTAssertTrue(M3UPlaylist.looksLikePlaylist(Array("\u{FEFF} \r\n#EXTM3U\n".utf8)))
        XCTAssertFalse(M3UPlaylist.looksLikePlaylist(Array("#EXTINF:-1,x\n".utf8)))
        XCTAssertFalse(M3UPlaylist.looksLikePlaylist([]))
    }

    func testM3URelativeURLsAndPlaylistWithoutHeader() async throws {
        let body = "#EXTINF:-1 tvg-id=\"A.de\" tvg-logo=\"/logos/a.png\",A\nstreams/a.m3u8\n"
        let r = try await plugins.fetch(#"{"name":"pl","type":"channels","url":"https://e.de/lists/tv.m3u","format":"m3u"}"#, [("https://e.de/lists/tv.m3u", 200, body)])
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.first?.url, "https://e.de/lists/streams/a.m3u8", "relative stream URLs resolve against the playlist")
        XCTAssertEqual(r.items.first?.image, "https://e.de/logos/a.png")
        let auto = try await plugins.fetch(#"{"name":"pl","type":"channels","url":"https://e.de/lists/tv.m3u"}"#, [("https://e.de/lists/tv.m3u", 200, body)])
        XCTAssertEqual(auto.error, ##"GET https://e.de/lists/tv.m3u: expected JSON or an #EXTM3U playlist, found text starting "#EXTINF:-1 tvg-id="A.de" tvg-logo="/logo...""##, "without a header, auto-detection cannot tell")
    }

    // MARK: detection and options

    func testFormatDetectionAndUndetectableDocuments() async throws {
        let src = #"{"name":"x","type":"channels","url":"https://e.ru/c"}"#
        let list = try await plugins.fetch(src, [("https://e.ru/c", 200, "\u{FEFF}" + #"{"channel":[{"key":5,"name":"Пять"}]}"#)])
        XCTAssertEqual(list.items.map(\.id), ["channel:5"], "a BOM before JSON is tolerated")
        let org = try await plugins.fetch(src, [("https://e.ru/c", 200, #"[{"id":"Five.ru","name":"Five"}]"#)])
        XCTAssertEqual(org.items.map(\.id), ["channel:Five.ru"])
        let empty = try await plugins.fetch(src, [("https://e.ru/c", 200, "[]")])
        XCTAssertNil(empty.error)
        XCTAssertEqual(empty.items.count, 0)
        let cases: [(String, String)] = [
            (#"{"channels":[],"total":0}"#, #"found an object with keys "channels", "total""#),
            (#"[{"name":"no id"}]"#, #"found an array whose first element is an object with keys "name""#),
            (#"["a","b"]"#, "found an array whose first element is a string"),
            ("42", "found a number"),
        ]
        for (body, found) in cases {
            let r = try await plugins.fetch(src, [("https://e.ru/c", 200, body)])
            XCTAssertEqual(r.error, #"GET https://e.ru/c: cannot tell the channel list format: expected an object with a "channel" array, an iptv-org array of channels with "id" and "name", or an #EXTM3U playlist; "# + found + #" (set "format" to say which it is)"#)
        }
        let html = try await plugins.fetch(src, [("https://e.ru/c", 200, "<!DOCTYPE html><html><body>Login</body></html>")])
        XCTAssertEqual(html.error?.hasPrefix("GET https://e.ru/c: got an HTML page, expected JSON"), true, html.error ?? "")
        let truncated = try await plugins.fetch(src, [("https://e.ru/c", 200, #"{"channel":[{"key":1"#)])
        XCTAssertEqual(truncated.error?.hasPrefix("GET https://e.ru/c: invalid JSON at 1:21"), true, truncated.error ?? "")
    }

    func testStreamsURLOnAnAutoDetectedListIsIgnoredWithAWarning() async throws {
        let r = try await plugins.fetch(#"{"name":"x","type":"channels","url":"\#(listURL)","streams_url":"\#(streamsURL)"}"#, [(listURL, 200, #"{"channel":[{"key":1,"name":"A"}]}"#)])
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.count, 1)
        XCTAssertEqual(r.warnings, ["streams_url ignored: GET \(listURL) is a list document, not iptv-org channels.json"])
    }

    func testOptionValidation() async {
        func one(_ extra: String) -> String { plugins.configErrors(#"{"name":"x","type":"channels","url":"https://e.ru/c"\#(extra)}"#).joined(separator: "\n") }
        XCTAssertEqual(plugins.configErrors(#"{"name":"x","type":"channels"}"#), [#"t.json: sources[0] ("x"): missing required key "url" (URL (http, https or file): the channel list (the whole URL; http, https, or file: for a local file))"#])
        XCTAssertEqual(plugins.configErrors(#"{"name":"x","type":"channels","url":"ftp://e.ru/c"}"#), [#"t.json: sources[0] ("x").url: expected an http://, https:// or file: URL, found "ftp://e.ru/c""#])
        XCTAssertEqual(one(#","format":"m3u8""#), #"t.json: sources[0] ("x").format: expected one of "auto", "list", "iptv-org", "m3u", found "m3u8" (did you mean "m3u"?)"#)
        XCTAssertEqual(one(#","format":"m3u","streams_url":"https://e.ru/s""#), #"t.json: sources[0] ("x").streams_url: applies to format "iptv-org" only, and format is "m3u""#)
        XCTAssertEqual(one(#","format":"iptv-org","skip_locked":true"#), #"t.json: sources[0] ("x").skip_locked: applies to format "list" only (only it has isLocked), and format is "iptv-org""#)
        XCTAssertEqual(one(#","format":"m3u","sort":"priority""#), #"t.json: sources[0] ("x").sort: "priority" needs format "list" (only it has priority), and format is "m3u""#)
        XCTAssertEqual(one(#","countries":["RU","Russia","r1"]"#), #"""
        t.json: sources[0] ("x").countries[1]: expected a two-letter ISO 3166-1 code such as "RU", found "Russia"
        t.json: sources[0] ("x").countries[2]: expected a two-letter ISO 3166-1 code such as "RU", found "r1"
        """#)
        XCTAssertEqual(one(#","countries":"RU""#), #"t.json: sources[0] ("x").countries: expected a list of strings, found "RU""#)
        XCTAssertEqual(one(#","countries":[]"#), #"t.json: sources[0] ("x").countries: an empty list keeps nothing; leave it out to keep every country"#)
        XCTAssertEqual(one(##","categories":["news","#"]"##), ##"t.json: sources[0] ("x").categories[1]: expected a category name, found "#""##)
        XCTAssertEqual(one(#","skip_locked":"yes""#), #"t.json: sources[0] ("x").skip_locked: expected true or false, found "yes""#)
        XCTAssertEqual(one(#","sortt":"name""#), #"t.json: sources[0] ("x"): unknown key "sortt" (did you mean "sort"?)"#)
    }
}

/// `sort: "name"` orders as Foundation's case-insensitive, numeric comparison did.
final class NameOrderTests: XCTestCase {
    func testNamesSortAsFoundationsNumericCaseInsensitiveCompare() {
        let names = ["Channel 10", "channel 2", "Channel 1", "CHANNEL 02", "Channel 1a", "Channel", "channel 100", "Ärzte TV", "arte",
                     "ARD", "Zdf", "zdf neo", "3sat", "Sat.1", "Sat.1 Gold", "RTL", "rtl2", "RTL 2", "Das Erste HD", "das erste", "007 TV", "7 TV",
                     "News 24/7", "News 24", "", "Ω TV", "é tv", "e tv", "f tv", "10", "9", "09a", "9b"]
        for a in names {
            for b in names {
                let foundation = a.compare(b, options: [.caseInsensitive, .numeric]) == .orderedAscending
                XCTAssertEqual(NameOrder.precedes(a, b), foundation, "\(a) < \(b)")
            }
        }
    }
}
