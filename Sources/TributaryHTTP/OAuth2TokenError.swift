/// Why a token endpoint's answer gave no token, readable as is (it names no secret).
public struct OAuth2TokenError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
