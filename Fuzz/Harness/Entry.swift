// libFuzzer entry point (Fuzz/README.md): one binary for every target, TRIBUTARY_FUZZ_TARGET
// names the one to run. Fuzz/run.sh builds it with `--sanitize fuzzer -Xswiftc
// -sanitize=fuzzer,address -Xswiftc -enable-testing`; libFuzzer supplies main.
import Foundation

/// Resolved once: an unknown name stops the run before the first input.
let selected: @Sendable ([UInt8]) -> Void = {
    let name = ProcessInfo.processInfo.environment["TRIBUTARY_FUZZ_TARGET"] ?? ""
    guard let run = FuzzTargets.all[name] else {
        let known = FuzzTargets.all.keys.sorted().joined(separator: " ")
        FileHandle.standardError.write(Data("TRIBUTARY_FUZZ_TARGET must be one of: \(known) (found \"\(name)\")\n".utf8))
        exit(2)
    }
    return run
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    selected(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
