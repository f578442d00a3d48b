import TributaryBase

/// Strict RFC 8259 parser from raw bytes into a `JSONValue` tree: validates UTF-8, decodes `\u`
/// escapes with surrogate pairs (lone surrogates rejected), keeps numbers as their literal text,
/// and limits nesting so hostile input becomes an error instead of a stack overflow.
///
/// It is `JSONDocument` (the one validating pass, into a tape) converted with `value`; readers
/// that only pick fields should keep the `JSONDocument` and read it through its `root` node.
public enum JSONParser {
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 512) throws(JSONParseError) -> JSONValue {
        try JSONDocument(bytes, maxDepth: maxDepth).value
    }

    public static func parse(_ text: String, maxDepth: Int = 512) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }
}
