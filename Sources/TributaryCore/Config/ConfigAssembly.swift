/// Builds the `Config` from its parsed files: the top-level sections (each from the one file
/// that has it), then every file's sources and sinks in order, each validated against its
/// type's declarations, with errors naming the file they are in.
extension ConfigLoader {
    static let sections = ["defaults", "http", "state", "metrics", "stories"]

    static func assemble(_ parts: [ConfigPart], file: String, directory: String, inFolder: Bool,
                         registry: Registry, selection: SourceSelection) throws(ConfigError) -> Config {
        let tops = parts.map { part in
            OptionReader(object: part.root, context: "(top level)", specs: inFolder ? topLevelInFolder : topLevel,
                         diagnostics: part.diag, configDirectory: part.directory)
        }
        // defaults, http and state: from the one file that has each.
        var owner: [String: Int] = [:]
        for (p, part) in parts.enumerated() {
            for key in sections where part.root[key] != nil {
                if let first = owner[key] {
                    part.diag.add("(top level): \"\(key)\" is already set in \(parts[first].file) (defaults, http, state, metrics and stories may each be set in only one file of a config folder)")
                } else {
                    owner[key] = p
                }
            }
        }
        func section(_ option: Option<OptionReader>, _ specs: [any OptionDeclaration]) -> OptionReader {
            if let p = owner[option.spec.name], let r = tops[p][option] { return r }
            // An absent section reads as an empty one: every option's default.
            let empty = OptionReader(object: JSONObject(), context: "", specs: [], diagnostics: ConfigDiagnostics(file: file), configDirectory: directory)
            return empty.nested(JSONObject(), key: option.spec.name, specs: specs.map(\.spec))
        }
        let defaults = section(Self.defaults, CommonOptions.Defaults.all)
        let httpR = section(Self.http, CommonOptions.HTTP.all)
        var http = HTTPSettings()
        http.concurrency = httpR[CommonOptions.HTTP.concurrency]
        http.perHost = httpR[CommonOptions.HTTP.perHost]
        if http.perHost > http.concurrency, httpR.has(CommonOptions.HTTP.perHost) {
            httpR.error(CommonOptions.HTTP.perHost, "must not exceed http.concurrency (\(http.concurrency)), found \(http.perHost)")
        }
        http.perHost = min(http.perHost, http.concurrency)
        http.perHostIsSet = httpR.has(CommonOptions.HTTP.perHost)
        http.userAgent = httpR[CommonOptions.HTTP.userAgent]
        http.maxBody = httpR[CommonOptions.HTTP.maxBody]
        http.http2 = httpR[CommonOptions.HTTP.http2]
        http.caFile = httpR[CommonOptions.HTTP.caFile]
        let stateR = section(Self.state, CommonOptions.State.all)
        let metricsR = owner["metrics"].flatMap { tops[$0][Self.metrics] }
        let metricsFile = metricsR.flatMap { $0[CommonOptions.Metrics.file] }
        let metricsListen = metricsR.flatMap { $0[CommonOptions.Metrics.listen] }.flatMap(ListenAddress.init(parsing:))
        let shared = SharedStateSettings.read(stateR)
        let stories = owner["stories"].flatMap { tops[$0][Self.stories] }.map(StorySettings.read)
        let sourceDefaults = SourceDefaults(
            interval: defaults[CommonOptions.Defaults.interval], intervalMin: defaults[CommonOptions.Defaults.intervalMin],
            intervalMax: defaults[CommonOptions.Defaults.intervalMax], timeout: defaults[CommonOptions.Defaults.timeout],
            retries: defaults[CommonOptions.Defaults.retries], jitter: defaults[CommonOptions.Defaults.jitter],
            filter: FilterOptions.read(defaults),
            process: defaults[CommonOptions.process].map { makeProcessors($0, context: "defaults.process", reader: defaults, registry: registry) })

        // At their size: grown by doubling, the list of 10,000 sources held 16,384 places.
        let count = parts.reduce(0) { $0 + ($1.root["sources"]?.arrayValue?.count ?? 0) }
        var sources: [ConfiguredSource] = []
        sources.reserveCapacity(count)
        // Names to their place in `places`: a `[String: Int]` as `owner` is, so the start of
        // `check` builds the generic metadata of one dictionary type, not of two.
        var names: [String: Int] = [:]
        names.reserveCapacity(count)
        var places: [(part: Int, index: Int)] = []
        for (p, part) in parts.enumerated() {
            var pending: [PendingSource] = []
            for (i, el) in (part.root["sources"]?.arrayValue ?? []).enumerated() {
                guard let obj = el.objectValue else { continue }  // reported by the top-level check
                let name = obj["name"]?.stringValue
                let context = name.map { "sources[\(i)] (\"\($0)\")" } ?? "sources[\(i)]"
                // What is said of the source before it is built, in this order.
                var notes: [String] = []
                if let name, let known = names[name] {
                    let prev = places[known]
                    let other = prev.part == p ? "sources[\(prev.index)]" : "\(parts[prev.part].file): sources[\(prev.index)]"
                    notes.append("\(context).name: \"\(name)\" is already used by \(other)")
                } else if let name {
                    names[name] = places.count
                    places.append((p, i))
                }
                let missing = (part.sourceMissing[i] ?? []).map(ConfigPart.unsetMessage)
                var unresolved: [String] = []
                if selection.includes(name: name, enabled: obj["enabled"]?.boolValue ?? true) {
                    notes += missing
                } else {
                    unresolved = missing.map { "\(part.file): \($0)" }
                }
                pending.append(PendingSource(index: i, object: obj, context: context, notes: notes, unresolved: unresolved))
            }
            sources += buildSources(pending, part: part, registry: registry, defaults: sourceDefaults)
        }

        var sinks: [ConfiguredSink] = []
        let defaultSinks: [JSONValue] = [.object(JSONObject([("type", .string("stdout"))]))]
        let anySinks = parts.contains { $0.root["sinks"] != nil }
        for (p, part) in parts.enumerated() {
            let list = part.root["sinks"]?.arrayValue ?? (!anySinks && p == 0 ? defaultSinks : [])
            for (i, el) in list.enumerated() {
                guard let obj = el.objectValue else { continue }
                if let sink = makeSink(obj, context: "sinks[\(i)]", part: part, registry: registry) { sinks.append(sink) }
            }
        }
        nameSinks(&sinks, diag: parts[0].diag)
        let errors = parts.flatMap(\.diag.errors)
        if !errors.isEmpty { throw ConfigError(messages: errors) }
        let stateOwner = owner["state"].map { parts[$0] }
        return Config(file: file, directory: directory, files: parts.map(\.file), http: http, replayDirectory: httpR[CommonOptions.HTTP.replay],
                      statePath: stateR[CommonOptions.State.path],
                      stateOrigin: stateOwner.map { "\($0.file): state.path" },
                      retention: stateR[CommonOptions.State.retention], lockTimeout: stateR[CommonOptions.State.lockTimeout],
                      metricsFile: metricsFile, metricsListen: metricsListen, sharedState: shared, lease: stateR[CommonOptions.State.lease],
                      stories: stories, sources: sources, sinks: sinks)
    }

    /// Sink names (the metrics' `sink` label): an explicit `name` is unique; unnamed sinks of
    /// one type are told apart by their order (`jsonl`, `jsonl-2`, ...).
    static func nameSinks(_ sinks: inout [ConfiguredSink], diag: ConfigDiagnostics) {
        var first: [String: Int] = [:]
        for i in sinks.indices where sinks[i].hasExplicitName {
            if let j = first[sinks[i].name] {
                diag.add("sinks[\(i)].name: \"\(sinks[i].name)\" is already the name of sinks[\(j)]")
            }
            first[sinks[i].name] = first[sinks[i].name] ?? i
        }
        var taken = Set(sinks.map(\.name))
        var seenTypes: [String: Int] = [:]
        for i in sinks.indices where !sinks[i].hasExplicitName {
            let n = seenTypes[sinks[i].type, default: 0] + 1
            seenTypes[sinks[i].type] = n
            guard n > 1 else { continue }
            var k = n
            while taken.contains("\(sinks[i].type)-\(k)") { k += 1 }
            sinks[i].name = "\(sinks[i].type)-\(k)"
            taken.insert(sinks[i].name)
        }
    }

    /// `defaults`, as every source reads them.
    struct SourceDefaults {
        let interval: IntervalValue
        let intervalMin: Double
        let intervalMax: Double
        let timeout: Double
        let retries: Int
        let jitter: Double?
        let filter: ItemFilter?
        /// `defaults.process`, built once: processors keep what they need per run in their run.
        let process: [any Processor]?
    }

    /// The options of each source type (the common ones, then the type's), made once per type
    /// rather than once per source.
    struct SourceSpecs {
        private var byType: [String: [OptionSpec]] = [:]

        mutating func of(_ desc: SourceDescriptor) -> [OptionSpec] {
            if let known = byType[desc.type] { return known }
            let specs = CommonOptions.source.map(\.spec) + desc.options
            byType[desc.type] = specs
            return specs
        }
    }

    static func makeSource(_ obj: JSONObject, index i: Int, context: String, diag: ConfigDiagnostics, directory: String, registry: Registry, defaults: SourceDefaults, specs: inout SourceSpecs) -> ConfiguredSource? {
        let name = obj["name"]?.stringValue
        if let name {
            if !isValidName(name) { diag.add("\(context).name: \"\(name)\" must match [a-z0-9][a-z0-9._-]*") }
        } else {
            diag.add("\(context): missing required key \"name\"")
        }
        guard let type = obj["type"]?.stringValue else {
            diag.add("\(context): missing required key \"type\" (one of: \(registry.sources.map(\.type).joined(separator: ", ")))")
            return nil
        }
        guard let desc = registry.source(type) else {
            var msg = "\(context).type: unknown source type \"\(type)\""
            if let meant = registry.sources.first(where: { $0.aliases.contains(type) }) {
                msg += " (did you mean \"\(meant.type)\"?)"
            } else if let s = Suggest.closest(to: type, in: registry.sources.map(\.type)) {
                msg += " (did you mean \"\(s)\"?)"
            }
            diag.add(msg + "; known types: " + registry.sources.map(\.type).joined(separator: ", "))
            return nil
        }
        let before = diag.errors.count
        let checksBefore = diag.preflight.count
        let reader = OptionReader(object: obj, context: context, specs: specs.of(desc), diagnostics: diag, configDirectory: directory)
        let quota = reader[CommonOptions.quota]
        let written = reader[CommonOptions.interval] ?? defaults.interval
        var adaptive: AdaptiveInterval? = nil
        if written == .auto {
            let lo = reader[CommonOptions.intervalMin] ?? defaults.intervalMin
            let hi = reader[CommonOptions.intervalMax] ?? defaults.intervalMax
            if lo > hi { reader.error(reader.has(CommonOptions.intervalMax) ? CommonOptions.intervalMax.spec.name : CommonOptions.intervalMin.spec.name,
                                      "interval_min (\(Durations.format(lo))) must not exceed interval_max (\(Durations.format(hi)))") }
            adaptive = AdaptiveInterval(min: lo, max: hi, jitter: defaults.jitter)
        } else if reader.has(CommonOptions.intervalMin) || reader.has(CommonOptions.intervalMax) {
            reader.error(reader.has(CommonOptions.intervalMin) ? CommonOptions.intervalMin.spec.name : CommonOptions.intervalMax.spec.name,
                         "only applies with \"interval\": \"auto\"")
        }
        let interval = written.seconds ?? adaptive?.start ?? 900
        var settings = SourceSettings(
            name: name ?? "source\(i)", type: type,
            enabled: reader[CommonOptions.enabled],
            interval: interval,
            jitter: defaults.jitter.map { min($0, interval) },
            timeout: reader[CommonOptions.timeout] ?? defaults.timeout,
            retries: reader[CommonOptions.retries] ?? defaults.retries,
            maxItems: reader[CommonOptions.maxItems],
            firstRun: reader[CommonOptions.firstRun],
            emitUpdates: reader[CommonOptions.emitUpdates],
            quota: quota.map { q in (q[CommonOptions.Quota.requests], q[CommonOptions.Quota.per]) },
            expectNewWithin: reader[CommonOptions.expectNewWithin],
            filter: FilterOptions.read(reader) ?? defaults.filter)
        settings.adaptive = adaptive
        settings.auth = AuthOptions.read(reader, specs: desc.options)
        settings.proxy = reader[CommonOptions.proxy]
        if let proxy = settings.proxy { ProxyURL.registerCredentials(proxy) }
        // The plugin's own checks run even when a key was wrong (typed reads give a
        // placeholder then), so every error of the config is reported at once.
        let own = reader[CommonOptions.process].map { makeProcessors($0, context: context + ".process", reader: reader, registry: registry) }
        guard let source = desc.make(settings, reader), diag.errors.count == before else { return nil }
        let processors = (settings.filter.map { [FilterProcessor($0)] } ?? []) + (own ?? defaults.process ?? [])
        return ConfiguredSource(settings: settings, source: source, processors: processors, checks: Array(diag.preflight[checksBefore...]))
    }

    /// The processors of a `process` list (`context`: its key path), each checked against its
    /// type's declarations; the errors go to `reader`'s file.
    static func makeProcessors(_ list: [JSONValue], context: String, reader: OptionReader, registry: Registry) -> [any Processor] {
        let diag = reader.diagnostics
        var out: [any Processor] = []
        for (i, el) in list.enumerated() {
            let at = "\(context)[\(i)]"
            guard let obj = el.objectValue else { continue }  // reported by the list's own check
            guard let type = obj["type"]?.stringValue else {
                diag.add("\(at): missing required key \"type\" (one of: \(registry.processors.map(\.type).joined(separator: ", ")))")
                continue
            }
            guard let desc = registry.processor(type) else {
                var msg = "\(at).type: unknown processor type \"\(type)\""
                if let s = Suggest.closest(to: type, in: registry.processors.map(\.type)) { msg += " (did you mean \"\(s)\"?)" }
                diag.add(msg + "; known types: " + registry.processors.map(\.type).joined(separator: ", "))
                continue
            }
            let before = diag.errors.count
            let r = OptionReader(object: obj, context: at, specs: [CommonOptions.processorType.spec] + desc.options, diagnostics: diag, configDirectory: reader.configDirectory)
            if let p = desc.make(r), diag.errors.count == before { out.append(p) }
        }
        return out
    }

    static func makeSink(_ obj: JSONObject, context: String, part: ConfigPart, registry: Registry) -> ConfiguredSink? {
        let diag = part.diag
        guard let type = obj["type"]?.stringValue else {
            diag.add("\(context): missing required key \"type\" (one of: \(registry.sinks.map(\.type).joined(separator: ", ")))")
            return nil
        }
        guard let desc = registry.sink(type) else {
            var msg = "\(context).type: unknown sink type \"\(type)\""
            if let hint = CommonOptions.Metrics.sinkTypeHints[type] {
                msg += " (\(hint))"
            } else if let meant = registry.sinks.first(where: { $0.aliases.contains(type) }) {
                msg += " (did you mean \"\(meant.type)\"?)"
            } else if let s = Suggest.closest(to: type, in: registry.sinks.map(\.type)) {
                msg += " (did you mean \"\(s)\"?)"
            }
            diag.add(msg + "; known types: " + registry.sinks.map(\.type).joined(separator: ", "))
            return nil
        }
        let before = diag.errors.count
        let checksBefore = diag.preflight.count
        var object = obj
        if !desc.takesTemplate, obj["template"] != nil {
            let takers = registry.sinks.filter(\.takesTemplate).map(\.type)
            diag.add("\(context).template: the \(type) sink takes no template (\(takers.isEmpty ? "no sink type does" : "the sinks that do: " + takers.joined(separator: ", ")))")
            object = JSONObject(obj.entries.filter { $0.key != "template" })
        }
        let reader = OptionReader(object: object, context: context, specs: CommonOptions.sink.map(\.spec) + desc.options, diagnostics: diag, configDirectory: part.directory)
        let template = desc.takesTemplate ? compileTemplate(reader, registry: registry) : nil
        guard let sink = desc.makeWithTemplate(reader, template), diag.errors.count == before else { return nil }
        return ConfiguredSink(type: type, name: reader[CommonOptions.sinkName], sink: sink, filter: FilterOptions.read(reader), checks: Array(diag.preflight[checksBefore...]))
    }
}

extension ConfigLoader {
    /// The sink's `template`, compiled by the registry's language; nil without one, or with an
    /// error naming the key (`sinks[0].template: jq: error: ...`) when it does not compile.
    static func compileTemplate(_ reader: OptionReader, registry: Registry) -> (any ItemTemplate)? {
        guard let text = reader[CommonOptions.template] else { return nil }
        guard let compiler = registry.templates else {
            reader.error(CommonOptions.template.spec.name, "this build has no template language")
            return nil
        }
        switch compiler.compile(text) {
        case .success(let t): return t
        case .failure(let e):
            reader.error(CommonOptions.template.spec.name, e.message)
            return nil
        }
    }

    /// A sink the command line makes itself, declared as a config declares one: JSON Lines on
    /// stdout for `--jsonl`, `--dry-run` and `test` is `{"type": "jsonl", "path": "-"}`. Nil when
    /// the registry has no such type or the object breaks its declarations.
    public static func sink(_ entries: [(key: String, value: JSONValue)], registry: Registry) -> ConfiguredSink? {
        let object = JSONObject(entries)
        let diag = ConfigDiagnostics(file: "tributary")
        guard let type = object["type"]?.stringValue, let desc = registry.sink(type) else { return nil }
        let reader = OptionReader(object: object, context: "sink", specs: CommonOptions.sink.map(\.spec) + desc.options, diagnostics: diag, configDirectory: ".")
        guard let sink = desc.make(reader), diag.errors.isEmpty else { return nil }
        return ConfiguredSink(type: type, sink: sink)
    }
}
