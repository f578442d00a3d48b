import TributaryBase

extension JSONDocument {
    /// Appends the subtree at `i` as compact JSON, byte for byte what `JSONWriter.write` writes
    /// for `value(at: i)`, without building it: strings are copied (escapes rewritten to the
    /// writer's form) and numbers keep their literal text. Iterative, like `value(at:)`.
    func write(at i: Int, to out: inout [UInt8]) {
        let first = entry(i)
        guard first.isContainer else { return writeScalar(at: i, to: &out) }
        // Per open container: where it ends, whether it is an object, entries written so far.
        var stack: [(end: Int, isObject: Bool, written: Int)] = []
        var j = i
        while true {
            if let top = stack.last, j == top.end {
                out.append(top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                stack.removeLast()
                if stack.isEmpty { return }
                continue
            }
            if !stack.isEmpty {
                let t = stack.count - 1
                let n = stack[t].written
                stack[t].written = n + 1
                if stack[t].isObject {
                    if n % 2 == 0 {
                        // A key: the separator before the member, the key, the colon.
                        if n > 0 { out.append(UInt8(ascii: ",")) }
                        appendString(at: j, verbatim: false, to: &out)
                        out.append(UInt8(ascii: ":"))
                        j += 1
                        continue
                    }
                } else if n > 0 {
                    out.append(UInt8(ascii: ","))
                }
            }
            let e = entry(j)
            if e.isContainer {
                out.append(e.kind == JSONTapeEntry.object ? UInt8(ascii: "{") : UInt8(ascii: "["))
                stack.append((Int(e.end), e.kind == JSONTapeEntry.object, 0))
            } else {
                writeScalar(at: j, to: &out)
            }
            j += 1
        }
    }

    private func writeScalar(at i: Int, to out: inout [UInt8]) {
        let e = entry(i)
        switch e.kind {
        case JSONTapeEntry.string:
            appendString(at: i, verbatim: false, to: &out)
        default:
            // null, true, false and numbers: the literal as written is the writer's output.
            withBytes { base in out.append(contentsOf: UnsafeBufferPointer(start: base + Int(e.offset), count: Int(e.length))) }
        }
    }
}
