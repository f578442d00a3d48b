import TributaryCore
#if canImport(Glibc)
import Glibc
#endif

/// `tributary init [FILE]`: a commented starter config, as `telegraf config` and
/// `vector generate` write one. The config is strict JSON, so the comments are `$comment` keys
/// (keys that begin with `$` are dropped before validation: Docs/configuration.md). It holds one
/// `feed` source, one `json` API source, a `jsonl` sink and a state file, and `check` accepts it
/// (InitEndToEndTests).
enum StarterConfig {
    static let text = """
    {
      "$comment": "A starter config written by `tributary init`. Keys that begin with $ are comments (the file is strict JSON: no // comments, no trailing commas). Check it with `tributary check -c FILE`, look at one source's items with `tributary test NAME -c FILE`, then `tributary run -c FILE` (or `tributary watch -c FILE` to keep running). Every option: `tributary sources` and Docs/configuration.md. Relative paths are relative to this file.",
      "state": {
        "$comment": "Remembers which items were delivered, so each run delivers only new ones. Delete it to start over.",
        "path": "state.sqlite"
      },
      "sources": [
        {
          "$comment": "An RSS or Atom feed (or JSON Feed): only the URL is needed. Checked every hour; `tributary status` calls it stale (exit 1) after 30 days with nothing new.",
          "name": "swift-blog",
          "type": "feed",
          "url": "https://www.swift.org/atom.xml",
          "interval": "1h",
          "expect_new_within": "30d"
        },
        {
          "$comment": "Any JSON API: `items` is the key path of the list of items (here the document itself is the list, so it is left out), and `fields` maps each item's keys to the item's fields. GitHub allows 60 requests an hour without a token; for more, add an Authorization header whose token comes from an environment variable (Docs/configuration.md, Environment variables).",
          "name": "swift-releases",
          "type": "json",
          "url": "https://api.github.com/repos/swiftlang/swift/releases",
          "query": { "per_page": "10" },
          "headers": { "Accept": "application/vnd.github+json" },
          "interval": "6h",
          "fields": {
            "id": "id",
            "title": "name",
            "summary": "body",
            "url": "html_url",
            "published": "published_at"
          }
        }
      ],
      "sinks": [
        {
          "$comment": "Each new item as one JSON object per line, appended to this file. Other sinks: rss, webhook, exec, postgres, nats (`tributary sources`).",
          "type": "jsonl",
          "path": "items.jsonl"
        }
      ]
    }

    """

    /// Writes the starter config to `file` (nil or `-`: stdout). An existing file is left as it
    /// is (exit 2) unless `force`.
    static func write(to file: String?, force: Bool, out: FDOutput, err: FDOutput) -> Int32 {
        guard let file, file != "-" else {
            do { try out.write(Array(text.utf8)) } catch { return 1 }
            return 0
        }
        var st = stat()
        if lstat(file, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFDIR {
                err.log("tributary: init: \(file) is a folder; give the path of the config file to write (e.g. \(file.hasSuffix("/") ? file : file + "/")tributary.json)\n")
                return 2
            }
            if !force {
                err.log("tributary: init: \(file) exists; it was left as it is (--force overwrites it)\n")
                return 2
            }
        }
        do throws(SinkError) { try AtomicFile.write(Array(text.utf8), to: file) } catch {
            err.log("tributary: init: \(error.message)\n")
            return 2
        }
        err.log("wrote \(file); next: tributary check -c \(file)\n")
        return 0
    }
}
