import TributaryCLI
#if canImport(Glibc)
import Glibc
#endif

let code = await TributaryCommand.main(Array(CommandLine.arguments.dropFirst()))
exit(code)
