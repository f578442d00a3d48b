import Foundation

/// A certificate authority and a server certificate for 127.0.0.1 and localhost, made with the
/// `openssl` program in a folder of the test's (P-256 keys: quick to make; valid for 2 days).
/// `ca` is what a client must trust (`http.ca_file`); `certificate` and `key` are the server's.
public struct TestCertificates: Sendable {
    public let ca: String
    public let certificate: String
    public let key: String

    /// Makes them in `folder`; fails naming the openssl step and its stderr.
    public static func make(in folder: String) throws -> TestCertificates {
        let openssl = try Tool.require("openssl")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let ext = folder + "/server.ext"
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
            .write(toFile: ext, atomically: true, encoding: .utf8)
        let steps: [(String, [String])] = [
            ("the CA", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", folder + "/ca.key",
                        "-out", folder + "/ca.pem", "-days", "2", "-subj", "/CN=Tributary Test CA",
                        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]),
            ("the server key and request", ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", folder + "/server.key",
                                            "-out", folder + "/server.csr", "-subj", "/CN=127.0.0.1"]),
            ("the server certificate", ["x509", "-req", "-in", folder + "/server.csr", "-CA", folder + "/ca.pem", "-CAkey", folder + "/ca.key",
                                        "-CAcreateserial", "-out", folder + "/server.pem", "-days", "2", "-extfile", ext]),
        ]
        for (what, args) in steps {
            let r = try Shell.run([openssl] + args, timeout: 30)
            guard r.status == 0 else { throw RunnerError(message: "openssl could not make \(what) (exit \(r.status)): \(r.stderr)") }
        }
        return TestCertificates(ca: folder + "/ca.pem", certificate: folder + "/server.pem", key: folder + "/server.key")
    }
}
