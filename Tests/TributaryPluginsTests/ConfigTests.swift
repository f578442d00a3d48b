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

final class ConfigTests: XCTestCase {
    func load(_ text: String, env: [String: String] = [:]) throws(ConfigError) -> Config {
        try ConfigLoader.load(bytes: Array(text.utf8), file: "tributary.json", directory: "/cfg", registry: BuiltinRegistry.standard, environment: { env[$0] })
    }

    func errors(_ text: String, env: [String: String] = [:]) -> [String] {
        do {
            _ = try load(text, env: env)
            XCTFail("expected config errors")
            return []
        } catch {
            return error.messages
        }
    }

    let okSource = #"{"name":"a","type":"json","url":"https://e.org/x","fields":{"title":"t"}}"#

    func testMinimalConfigLoadsWithDefaults() throws {
        let c = try load(#"{"sources":[\#(okSource)]}"#)
        XCTAssertEqual(c.sources.count, 1)
        XCTAssertEqual(c.sources[0].settings.timeout, 20)
        XCTAssertEqual(c.sources[0].settings.retries, 2)
        XCTAssertEqual(c.sources[0].settings.interval, 900)
        XCTAssertEqual(c.sinks.map(\.type), ["stdout"], "a missing sinks means one stdout sink")
        XCTAssertEqual(c.http.concurrency, 32)
        XCTAssertEqual(c.http.perHost, 6)
        XCTAssertEqual(c.http.maxBody, 16 << 20)
        XCTAssertTrue(c.http.http2)
        XCTAssertNil(c.http.caFile)
        XCTAssertFalse(c.http.perHostIsSet, "the default per_host gives way to HTTP/2 streams")
        XCTAssertNil(c.sources[0].settings.proxy)
    }

    func testSettingsAndDefaultsApply() throws {
        let c = try load(#"""
        {"$schema":"x","defaults":{"timeout":"5s","retries":0,"interval":"1h"},
         "http":{"concurrency":4,"per_host":2,"max_body":"1MiB","user_agent":"ua/1","replay":"rec"},
         "sources":[{"name":"a","type":"json","url":"https://e.org/x","fields":{"title":"t"},"timeout":"250ms","$comment":"ignored"}]}
        """#)
        XCTAssertEqual(c.sources[0].settings.timeout, 0.25)
        XCTAssertEqual(c.sources[0].settings.retries, 0)
        XCTAssertEqual(c.sources[0].settings.interval, 3600)
        XCTAssertEqual(c.http.concurrency, 4)
        XCTAssertEqual(c.http.perHost, 2)
        XCTAssertEqual(c.http.maxBody, 1 << 20)
        XCTAssertEqual(c.http.userAgent, "ua/1")
        XCTAssertEqual(c.replayDirectory, "/cfg/rec")
    }

    func testHTTP2CAFileAndProxy() throws {
        let dir = TempDir()
        defer { dir.remove() }
        _ = dir.write("ca.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
        let c = try ConfigLoader.load(bytes: Array(#"""
        {"http":{"http2":false,"per_host":2,"ca_file":"ca.pem"},
         "sources":[{"name":"a","type":"json","url":"https://e.org/x","fields":{"title":"t"},"proxy":"socks5h://u:pr0xy-secret@127.0.0.1:1080"}]}
        """#.utf8), file: "tributary.json", directory: dir.path, registry: BuiltinRegistry.standard, environment: { _ in nil })
        defer { Secrets.removeAll() }
        XCTAssertFalse(c.http.http2)
        XCTAssertTrue(c.http.perHostIsSet, "a per_host written in the config bounds HTTP/2 streams too")
        XCTAssertEqual(c.http.caFile, dir.path + "/ca.pem")
        XCTAssertEqual(c.sources[0].settings.proxy, "socks5h://u:pr0xy-secret@127.0.0.1:1080")
        XCTAssertEqual(Secrets.scrub("proxy said pr0xy-secret"), "proxy said ***")
    }

    func testSyntaxErrorHasLineAndColumn() {
        let e = errors("{\n  \"sources\": [\n    {\"name\": \"a\"}\n    {\"name\": \"b\"}\n  ]\n}")
        XCTAssertEqual(e, ["tributary.json:4:5: unexpected '{', expected ',' or ']'"])
    }

    func testUnknownKeysWithSuggestions() {
        let e = errors(#"{"sources":[{"name":"a","type":"json","url":"https://e.org/x","fields":{"titel":"t","title":"t"},"timout":"5s"}],"sink":[]}"#)
        XCTAssertTrue(e.contains(#"tributary.json: (top level): unknown key "sink" (did you mean "sinks"?)"#), "\(e)")
        XCTAssertTrue(e.contains(#"tributary.json: sources[0] ("a"): unknown key "timout" (did you mean "timeout"?)"#), "\(e)")
        XCTAssertTrue(e.contains(#"tributary.json: sources[0] ("a").fields: unknown key "titel" (did you mean "title"?)"#), "\(e)")
    }

    /// The names people try are declared with what they mean (`OptionSpec.aliases`, the
    /// descriptors' `aliases`, the metrics section's sink-type hints), so the hint points there
    /// instead of at the nearest spelling (`link` was "did you mean lon?", `file` "filter?").
    func testDeclaredHintsBeatSpelling() {
        let e = errors(#"""
        {"sources":[
          {"name":"a","type":"feed","link":"https://e.org/f.xml"},
          {"name":"b","type":"rss","url":"https://e.org/f.xml"},
          {"name":"c","type":"atom","url":"https://e.org/f.xml"},
          {"name":"d","type":"json","url":"https://e.org/x","items":"items","fields":{"title":"t"},"pagination":{"next":"next"}}
        ],"sinks":[{"type":"jsonl","file":"out.jsonl"},{"type":"prometheus"},{"type":"file","path":"x.jsonl"},{"type":"rss","file":"f.xml","path":"f.xml"}]}
        """#)
        for needle in [
            #"sources[0] ("a"): unknown key "link" (did you mean "url"?)"#,
            #"sources[1] ("b").type: unknown source type "rss" (did you mean "feed"?)"#,
            #"sources[2] ("c").type: unknown source type "atom" (did you mean "feed"?)"#,
            #"sources[3] ("d").pagination: unknown key "next" (did you mean "next_url"?)"#,
            #"sinks[0]: unknown key "file" (did you mean "path"?)"#,
            #"sinks[1].type: unknown sink type "prometheus" (Prometheus metrics are the top-level "metrics" section (metrics.file, metrics.listen), not a sink)"#,
            #"sinks[2].type: unknown sink type "file" (did you mean "jsonl"?)"#,
            #"sinks[3]: unknown key "file" (did you mean "path"?)"#,
        ] {
            XCTAssertTrue(e.contains { $0.contains(needle) }, "missing: \(needle)\nin: \(e.joined(separator: "\n"))")
        }
    }

    func testEveryErrorIsReportedAtOnce() {
        let e = errors(#"""
        {"sources":[
          {"name":"Bad Name","type":"json","url":"ftp://x","fields":{"title":"a..b"},"retries":"two"},
          {"name":"b","type":"jsn"},
          {"type":"json"},
          {"name":"c","type":"json","url":"https://e.org/${NOPE}","fields":{"title":"t"},"timeout":"soon"},
          {"name":"c","type":"json","url":"https://e.org/","fields":{"title":"t"}}
        ],"sinks":[{"type":"rss"},{"type":"jsonl","path":"x","mode":"rewrite"},{"type":"email"}]}
        """#)
        let joined = e.joined(separator: "\n")
        for needle in [
            #"sources[0] ("Bad Name").name: "Bad Name" must match [a-z0-9][a-z0-9._-]*"#,
            #"sources[0] ("Bad Name").url: expected an http://, https:// or file: URL, found "ftp://x""#,
            #"sources[0] ("Bad Name").fields.title: invalid key path "a..b""#,
            #"sources[0] ("Bad Name").retries: expected an integer, found "two""#,
            #"sources[1] ("b").type: unknown source type "jsn" (did you mean "json"?)"#,
            #"sources[2]: missing required key "name""#,
            #"sources[3].url: environment variable NOPE is not set"#,
            #"sources[3] ("c").timeout: expected a duration"#,
            #"sources[4] ("c").name: "c" is already used by sources[3]"#,
            #"sinks[0]: missing required key "path""#,
            #"sinks[1].mode: expected one of "append", "truncate", found "rewrite""#,
            #"sinks[2].type: unknown sink type "email""#,
        ] {
            XCTAssertTrue(joined.contains(needle), "missing: \(needle)\nin:\n\(joined)")
        }
        XCTAssertTrue(e.allSatisfy { $0.hasPrefix("tributary.json") })
    }

    func testEnvironmentInterpolation() throws {
        let c = try load(#"{"sources":[{"name":"a","type":"json","url":"https://e.org/${P}?k=${KEY:-none}","fields":{"title":"t"}}]}"#, env: ["P": "path"])
        let src = try XCTUnwrap(c.sources[0].source as? JSONSource)
        XCTAssertEqual(src.urls, ["https://e.org/path?k=none"])
        // A repeated "sources" key: the last list is the sources, and an unset variable of the
        // earlier list's source at the same place is still said (as it always was).
        let repeated = errors(#"{"sources":[{"name":"a","type":"json","url":"${NOPE}","fields":{"title":"t"}}],"#
                              + #""sources":[{"name":"a","type":"json","url":"https://x.org/","fields":{"title":"t"}}]}"#)
        XCTAssertTrue(repeated.contains { $0.contains("sources[0].url: environment variable NOPE is not set") }, repeated.joined(separator: "\n"))
    }

    func testWrongShapes() {
        XCTAssertEqual(errors("[]"), ["tributary.json: the config must be a JSON object, found array"])
        XCTAssertTrue(errors("{}").contains(#"tributary.json: (top level): missing required key "sources" (list of objects: the sources to fetch)"#))
        XCTAssertTrue(errors(#"{"sources":[1]}"#).contains("tributary.json: (top level).sources[0]: expected an object, found 1"))
        XCTAssertTrue(errors(#"{"sources":[],"http":{"concurrency":0}}"#).contains("tributary.json: (top level).http.concurrency: expected an integer >= 1, found 0"))
        XCTAssertTrue(errors(#"{"sources":[],"http":{"max_body":"big"}}"#).first!.contains("expected a size"))
        XCTAssertEqual(errors(#"{"sources":[],"http":{"concurrency":5000}}"#), ["tributary.json: (top level).http.concurrency: expected an integer <= 4096, found 5000"])
        XCTAssertEqual(errors(#"{"sources":[],"http":{"concurrency":32,"per_host":64}}"#), ["tributary.json: (top level).http.per_host: must not exceed http.concurrency (32), found 64"])
        XCTAssertTrue(errors(#"{"sources":[],"state":{"retention":"12h"}}"#).first!.contains("state.retention: must be at least 1d"))
        XCTAssertTrue(errors(#"{"sources":[\#(okSource.dropLast()),"first_run":"some"}]}"#).first!.contains(#"first_run: expected "all", "none" or an integer >= 1, found "some""#))
        XCTAssertTrue(errors(#"{"sources":[\#(okSource.dropLast()),"quota":{"requests":0}}]}"#).joined().contains("quota: missing required key \"per\""))
    }

    func testLimitsFitOneGatewayInFrontOfManySources() throws {
        let c = try load(#"{"sources":[],"http":{"concurrency":1024,"per_host":1024}}"#)
        XCTAssertEqual(c.http.concurrency, 1024)
        XCTAssertEqual(c.http.perHost, 1024)
        // Unset per_host keeps its default, capped by a smaller concurrency.
        XCTAssertEqual(try load(#"{"sources":[],"http":{"concurrency":4}}"#).http.perHost, 4)
    }

    func testIntegerIdsAreAcceptedInStringLists() throws {
        let c = try load(#"{"sources":[{"name":"w","type":"openweathermap","city_ids":[3470127,"524901"],"api_key":"k"}]}"#)
        XCTAssertEqual(c.sources.count, 1)
        XCTAssertTrue(errors(#"{"sources":[{"name":"w","type":"openweathermap","city_ids":[1.5],"api_key":"k"}]}"#).joined().contains("city_ids: expected a list of strings"))
    }

    /// A source type's own option must not reuse a key every source has (`type`, `name`, ...).
    func testNoSourceTypeRedeclaresACommonKey() {
        let common = Set(CommonOptions.source.map(\.spec.name))
        for d in BuiltinRegistry.standard.sources {
            XCTAssertEqual(Set(d.options.map(\.name)).intersection(common), [], d.type)
            XCTAssertEqual(Set(d.options.map(\.name)).count, d.options.count, "\(d.type): an option declared twice")
        }
        for d in BuiltinRegistry.standard.sinks {
            XCTAssertFalse(d.options.contains { $0.name == "type" }, d.type)
        }
    }

    func testJSONSourceSemanticChecks() {
        let e = errors(#"""
        {"sources":[
          {"name":"a","type":"json","fields":{"title":"t"}},
          {"name":"b","type":"json","url":"https://e.org","fields":{"lat":"x"},"kind":"Video"},
          {"name":"c","type":"json","url":"https://e.org","fields":{"title":"t","data":{"Bad-Name":"x"}},"pagination":{"next_token":"n"}},
          {"name":"d","type":"json","url":"https://e.org","urls":["https://ok.org","ftp://no"],"body":"x","fields":{"summary":"s"}}
        ]}
        """#).joined(separator: "\n")
        XCTAssertTrue(e.contains(#"sources[0] ("a"): needs "url" or "urls""#), e)
        XCTAssertTrue(e.contains(#"sources[1] ("b").kind: "Video" must match [a-z][a-z0-9_]*"#), e)
        XCTAssertTrue(e.contains(#"sources[1] ("b").fields: map at least one of"#), e)
        XCTAssertTrue(e.contains(#"sources[2] ("c").fields.data.Bad-Name: data field names must be snake_case"#), e)
        XCTAssertTrue(e.contains(#"sources[2] ("c").pagination.token_param: required with "next_token""#), e)
        XCTAssertTrue(e.contains(#"sources[3] ("d").urls[1]: expected an http://, https:// or file: URL, found "ftp://no""#), e)
        XCTAssertTrue(e.contains(#"sources[3] ("d").body: a request body needs "method": "POST""#), e)
        XCTAssertTrue(e.contains(#"sources[3] ("d").fields: map at least one of "id", "url" or "title""#), e)
    }

    /// URLs that cannot work are config errors with their key path (issue 19, finding 15), in
    /// every URL option: a source's `url` and `urls`, a `base_url`.
    func testURLsThatCannotWorkAreConfigErrors() {
        let e = errors(#"""
        {"sources":[
          {"name":"a","type":"json","url":"https://e.org/x\n?y=1","fields":{"title":"t"}},
          {"name":"b","type":"feed","urls":["https://ok.org/f","http://e.org:99999/f","http://e.org/a b","http://:80/f","https://[::1]:0/f"]},
          {"name":"c","type":"youtube.search","api_key":"k","query":"q","base_url":"https://e.org:http/v3"},
          {"name":"d","type":"json","url":"http://e.org/\u0000","fields":{"title":"t"}},
          {"name":"e","type":"channels","url":"http:///channels.json"}
        ]}
        """#)
        XCTAssertEqual(e.filter { $0.contains("url") || $0.contains("URL") }, [
            #"tributary.json: sources[0] ("a").url: "https://e.org/x\n?y=1" holds a line break (byte 16); a URL cannot hold white space or control characters (percent-encode them: %0A)"#,
            #"tributary.json: sources[1] ("b").urls[1]: "http://e.org:99999/f": port 99999 is not a port (a number from 1 to 65535)"#,
            #"tributary.json: sources[2] ("c").base_url: "https://e.org:http/v3": port http is not a port (a number from 1 to 65535)"#,
            #"tributary.json: sources[3] ("d").url: "http://e.org/\u{0}" holds a control character (byte 14); a URL cannot hold white space or control characters (percent-encode them: %00)"#,
            #"tributary.json: sources[4] ("e").url: "http:///channels.json" has no host"#,
        ], e.joined(separator: "\n"))
        // Only the first bad URL of a list is reported; each alone names its own problem.
        for (url, problem) in [("http://e.org/a b", "holds a space (byte 15)"), ("http://:80/f", "has no host"), ("https://[::1]:0/f", "port 0 is not a port"),
                               ("http://e.org/\t", "holds a tab"), ("http://u:p@e.org:8080/ok?q={x}", nil), ("https://[::1]:8443/ok", nil),
                               ("http://e.org:/empty-port-is-the-default", nil), ("https://e.org/новости", nil)] {
            let found = OptionReader.urlProblem(url, fileAllowed: false)
            if let problem { XCTAssertTrue(found?.contains(problem) == true, "\(url): \(found ?? "nil")") } else { XCTAssertNil(found, url) }
        }
        XCTAssertEqual(OptionReader.urlProblem("http://u:secret@e.org:99999/", fileAllowed: false), #""http://***@e.org:99999/": port 99999 is not a port (a number from 1 to 65535)"#)
    }

    /// Sources that repeat one `fields` object have it checked and read once (the options'
    /// memo, `OptionReader.reusing`), and each still says what it would say alone.
    func testSourcesThatRepeatOneFieldsObjectEachSayWhatTheyWouldAlone() throws {
        func json(_ name: String, _ fields: String) -> String {
            #"{"name":"\#(name)","type":"json","url":"https://e.org/\#(name)","fields":\#(fields)}"#
        }
        let shared = #"{"title":"t","tags":"k","data":{"n":"m"}}"#
        let c = try load(#"{"sources":[\#(json("a", shared)),\#(json("b", shared)),\#(json("c", #"{"title":"t"}"#)),\#(json("d", shared))]}"#)
        let made = try c.sources.map { try XCTUnwrap($0.source as? JSONSource) }
        XCTAssertEqual(made.map { $0.fields.tags?.path }, [KeyPath("k"), KeyPath("k"), nil, KeyPath("k")])
        XCTAssertEqual(made.map { $0.keyPaths.paths.count }, [11, 11, 10, 11])
        XCTAssertEqual(made.map { $0.fields.data.first?.1.path }, [KeyPath("m"), KeyPath("m"), nil, KeyPath("m")])

        // An object found wrong is checked again for every source that has it, an object that
        // only the plugin finds wrong (lat without lon) is made again, and another type's
        // `fields` (the html source's, which takes no "tags") is checked against its own options.
        let e = errors(#"""
        {"sources":[\#(json("a", #"{"title":"a..b"}"#)),\#(json("b", #"{"title":"a..b"}"#)),
          \#(json("c", #"{"title":"t","lat":"y"}"#)),\#(json("d", #"{"title":"t","lat":"y"}"#)),
          \#(json("e", shared)),{"name":"f","type":"html","url":"https://e.org/f","items":"//li","fields":\#(shared)},\#(json("g", shared))]}
        """#)
        XCTAssertEqual(e, [
            #"tributary.json: sources[0] ("a").fields.title: invalid key path "a..b": empty key before '.'"#,
            #"tributary.json: sources[0] ("a").fields: map at least one of "id", "url" or "title" (item ids are made from them)"#,
            #"tributary.json: sources[1] ("b").fields.title: invalid key path "a..b": empty key before '.'"#,
            #"tributary.json: sources[1] ("b").fields: map at least one of "id", "url" or "title" (item ids are made from them)"#,
            #"tributary.json: sources[2] ("c").fields.lat: "lat" and "lon" go together"#,
            #"tributary.json: sources[3] ("d").fields.lat: "lat" and "lon" go together"#,
            #"tributary.json: sources[5] ("f").fields: unknown key "tags""#,
            #"tributary.json: sources[5] ("f").fields: unknown key "data""#,
        ])

        // Text equal only by Unicode's equivalence is other text: ";" and the Greek question
        // mark (U+037E) compare equal as Swift strings, and jq reads the bytes.
        let semicolon = #"{"title":{"jq":"limit(1; .t)"}}"#
        let greek = #"{"title":{"jq":"limit(1\#("\u{37E}") .t)"}}"#
        XCTAssertEqual(semicolon.replacingOccurrences(of: ";", with: "\u{37E}"), greek)
        XCTAssertTrue(JSONValue.string(";") == JSONValue.string("\u{37E}"))
        XCTAssertFalse(JSONValue.string(";").isIdentical(to: .string("\u{37E}")))
        let alone = errors(#"{"sources":[\#(json("b", greek))]}"#)
        XCTAssertFalse(alone.isEmpty)
        XCTAssertEqual(errors(#"{"sources":[\#(json("a", semicolon)),\#(json("b", greek))]}"#), alone.map { $0.replacingOccurrences(of: "sources[0]", with: "sources[1]") })
    }

    /// A large file's sources are read into values on every core, and only a source whose text
    /// holds a `$` or an escape is walked for `${VAR}` and `$`-keys: an escaped dollar still
    /// spells a variable, a `$`-key is still dropped, the sources as written keep their
    /// references, and each unset variable is reported at its source, in the file's order.
    func testManySourcesAreReadOnEveryCoreAndOnlyThoseWithADollarArePrepared() throws {
        let n = 300
        XCTAssertGreaterThan(n, 2 * ConfigPart.readTogether)
        func source(_ i: Int, _ variable: String = "P") -> String {
            let url: String
            switch i % 5 {
            case 0: url = "https://e.org/${\(variable)}/\(i)"
            case 1: url = "https://e.org/\\u0024{\(variable)}/\(i)"
            default: url = "https://e.org/plain/\(i)"
            }
            let note = i % 5 == 2 ? #""$note":"dropped $ here","# : ""
            return #"{\#(note)"name":"s\#(i)","type":"json","url":"\#(url)","fields":{"title":"t"},"headers":{}}"#
        }
        let c = try load(#"{"$comment":"$","sources":[\#((0..<n).map { source($0) }.joined(separator: ",\n "))]}"#, env: ["P": "path"])
        XCTAssertEqual(c.sources.count, n)
        for (i, s) in c.sources.enumerated() {
            let src = try XCTUnwrap(s.source as? JSONSource)
            XCTAssertEqual(src.urls, [i % 5 < 2 ? "https://e.org/path/\(i)" : "https://e.org/plain/\(i)"], "sources[\(i)]")
            XCTAssertEqual(s.written?["url"]?.stringValue, i % 5 < 2 ? "https://e.org/${P}/\(i)" : "https://e.org/plain/\(i)", "sources[\(i)]")
        }
        // Unset: each at its own source, in order, whichever share read it.
        let e = errors(#"{"sources":[\#((0..<n).map { source($0, [5, 151, 295].contains($0) ? "UNSET" : "P") }.joined(separator: ","))]}"#, env: ["P": "path"])
        XCTAssertEqual(e.filter { $0.contains("UNSET") }.map { String($0.split(separator: " ")[1]) },
                       ["sources[5].url:", "sources[151].url:", "sources[295].url:"], e.joined(separator: "\n"))
    }

    /// A file of many sources is built on every core (`ConfigLoader.buildSources`): the sources
    /// come out in the file's order and the errors read as if built one after the other, a
    /// source's notes (its name taken, its unset variables) before its own errors.
    func testManySourcesAreBuiltOnEveryCoreInTheFilesOrder() throws {
        let n = 300
        XCTAssertGreaterThan(n, 4 * ConfigLoader.builtTogether)
        if CoreShares.cores > 1 { XCTAssertGreaterThan(CoreShares.count(of: n, atLeast: ConfigLoader.builtTogether), 1) }
        func source(_ i: Int, name: String? = nil, extra: String = "") -> String {
            let name = name ?? "s\(i)"
            return #"{"name":"\#(name)","type":"json","url":"https://e.org/\#(i)?k=${K\#(i)}","headers":{"Authorization":"Bearer secret-\#(i)"},"fields":{"title":"t.\#(i)","data":{"n":"n\#(i)"}}\#(extra)}"#
        }
        var env: [String: String] = [:]
        for i in 0..<n { env["K\(i)"] = "v\(i)" }

        let good = (0..<n).map { source($0) }.joined(separator: ",")
        let c = try load(#"{"sources":[\#(good)]}"#, env: env)
        XCTAssertEqual(c.sources.map(\.settings.name), (0..<n).map { "s\($0)" })
        for (i, s) in c.sources.enumerated() {
            let src = try XCTUnwrap(s.source as? JSONSource)
            XCTAssertEqual(src.urls, ["https://e.org/\(i)?k=v\(i)"])
            XCTAssertEqual(src.fields.title?.path, try KeyPath(parsing: "t.\(i)"))
            XCTAssertEqual(src.fields.data.map(\.0), ["n"])
            XCTAssertEqual(src.fields.data.first?.1.path, try KeyPath(parsing: "n\(i)"))
        }
        // Every share registered its sources' credentials.
        XCTAssertEqual(Secrets.scrub("a secret-7 b secret-299"), "a *** b ***")

        var bad = (0..<n).map { source($0) }
        bad[3] = source(3, extra: #","retries":"two""#)
        bad[100] = source(100, extra: #","retries":-1"#)
        bad[160] = source(160, extra: #","retries":"two","timeout":"x""#)
        bad[161] = source(161, name: "s3")
        bad[250] = source(250, name: "s10", extra: #","retries":"two""#)
        bad[299] = source(299, extra: #","urll":"x""#)
        env["K161"] = nil
        let e = errors(#"{"sources":[\#(bad.joined(separator: ","))]}"#, env: env)
        XCTAssertEqual(e, [
            #"tributary.json: sources[3] ("s3").retries: expected an integer, found "two""#,
            #"tributary.json: sources[100] ("s100").retries: expected an integer >= 0, found -1"#,
            #"tributary.json: sources[160] ("s160").retries: expected an integer, found "two""#,
            #"tributary.json: sources[160] ("s160").timeout: expected a duration up to 3650d (seconds, or a string like "250ms", "20s", "15m", "2h", "1d"), found "x""#,
            #"tributary.json: sources[161] ("s3").name: "s3" is already used by sources[3]"#,
            #"tributary.json: sources[161].url: environment variable K161 is not set (write ${K161:-default} to give a default)"#,
            #"tributary.json: sources[250] ("s10").name: "s10" is already used by sources[10]"#,
            #"tributary.json: sources[250] ("s10").retries: expected an integer, found "two""#,
            #"tributary.json: sources[299] ("s299"): unknown key "urll" (did you mean "url"?)"#,
        ])
    }

}

let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()
