// Minimal reproducer of the Swift 6.3.1 miscompile that crashed Tributary's release build
// (README.md beside this file). Build with `swiftc -O -parse-as-library repro.swift`.
// Prints one line per form: the banned form is wrong at -O, the project's form is right.

@inline(never) func fetch(_ i: Int) async throws -> Int {
    await Task.yield()
    if i < 0 { throw CancellationError() }
    return i * 10
}

@main struct Repro {
    static func main() async {
        // A value the optimizer cannot know: 3 with no arguments.
        let index = CommandLine.arguments.count + 2

        // Banned: a tuple with a captured value and a `try await` returned inside `do`.
        let banned = await Task {
            do { return (index, try await fetch(index)) } catch { return (index, -1) }
        }.value

        // The project's rule: bind the awaited value to a `let`, then build the tuple.
        let hoisted = await Task { () async -> (Int, Int) in
            let value: Int
            do { value = try await fetch(index) } catch { value = -1 }
            return (index, value)
        }.value

        print("banned:  \(banned == (3, 30) ? "ok" : "MISCOMPILED, got \(banned), expected (3, 30)")")
        print("hoisted: \(hoisted == (3, 30) ? "ok" : "MISCOMPILED, got \(hoisted), expected (3, 30)")")
    }
}
