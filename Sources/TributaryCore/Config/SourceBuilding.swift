import TributaryBase
import TributaryJSON
import TributaryOptions

/// A file's sources built on every core: each source is built from its own object and reads
/// nothing another source's building changes (the caches it shares, of key paths, key path
/// sets and secrets, are locked), so a file of many sources is split into one share per core.
/// What a share says goes to diagnostics of its own, taken back in the sources' order: the
/// errors read as if the sources were built one after the other.
extension ConfigLoader {
    /// A source as the file lists it, with what is said of it before it is built (its name
    /// taken, its unset variables) and the unset variables noted on it when it is not run.
    struct PendingSource {
        let index: Int
        let object: JSONObject
        let context: String
        let notes: [String]
        let unresolved: [String]
    }

    /// The fewest sources a thread builds: a file of twice as many or more is built on every
    /// core. A source takes 10-15 µs to build (a `json` source with its `fields`); waking a
    /// thread of the pool costs about as much as a few sources.
    static let builtTogether = 64

    /// The sources of `part` that are built without an error, in order; every error and
    /// note goes to `part`'s diagnostics in the order of `pending`.
    static func buildSources(_ pending: [PendingSource], part: ConfigPart, registry: Registry, defaults: SourceDefaults) -> [ConfiguredSource] {
        // A small file on the calling thread, into the file's own diagnostics.
        guard CoreShares.count(of: pending.count, atLeast: builtTogether) > 1 else {
            return build(pending, 0..<pending.count, part: part, diag: part.diag, registry: registry, defaults: defaults)
        }
        let shares = CoreShares.map(pending.count, atLeast: builtTogether) { range -> Share in
            let diag = part.diag.beside()
            return Share(sources: build(pending, range, part: part, diag: diag, registry: registry, defaults: defaults), diag: diag)
        }
        var sources: [ConfiguredSource] = []
        sources.reserveCapacity(pending.count)
        for share in shares {
            sources += share.sources
            part.diag.absorb(share.diag)
        }
        return sources
    }

    /// What one share built, and what it said.
    final class Share {
        let sources: [ConfiguredSource]
        let diag: ConfigDiagnostics
        init(sources: [ConfiguredSource], diag: ConfigDiagnostics) {
            self.sources = sources
            self.diag = diag
        }
    }

    /// The sources of `range` built in order, their notes and errors said to `diag`.
    private static func build(_ pending: [PendingSource], _ range: Range<Int>, part: ConfigPart, diag: ConfigDiagnostics,
                              registry: Registry, defaults: SourceDefaults) -> [ConfiguredSource] {
        var specs = SourceSpecs()
        var built: [ConfiguredSource] = []
        built.reserveCapacity(range.count)
        for k in range {
            let p = pending[k]
            for note in p.notes { diag.add(note) }
            // Built from a copy of its object: what a source keeps of it (its URL, key
            // paths, names) would otherwise be strings of the parsed tree, a few in every
            // page of it, and would keep all of the tree's pages once the rest is freed
            // (10,000 sources: 12.9 MB free in 20,000 holes of the main arena, given back
            // to nobody). The copy's strings sit beside the source's own objects, and the
            // copy's containers, freed before the next source is built, are reused by it.
            guard var source = makeSource(p.object.detached(), index: p.index, context: p.context, diag: diag, directory: part.directory,
                                          registry: registry, defaults: defaults, specs: &specs) else { continue }
            source.unresolved = p.unresolved
            source.written = p.index < part.writtenSources.count ? part.writtenSources[p.index].objectValue : nil
            built.append(source)
        }
        return built
    }
}
