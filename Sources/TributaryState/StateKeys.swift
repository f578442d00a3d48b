import TributaryBase

/// How the state keys an item id: on the SHA-256 of its UTF-8 bytes (32 bytes), with the id kept
/// beside it (`emitted.id_hash`, and `recent_items.id_hash` in PostgreSQL). A key of one size
/// whatever the id's length: PostgreSQL's btree index refuses a row over about 2.7 KB, and an id
/// may be up to `Item.maxIDBytes` (Docs/contract.md#items). Miniflux keys its entries the same way.
public enum StateKeys {
    /// The key of `id`: SHA-256 of its UTF-8 bytes, which is what PostgreSQL's
    /// `sha256(convert_to(id, 'UTF8'))` gives for the rows a migration converts.
    public static func idHash(_ id: String) -> [UInt8] { Digest.sha256(Array(id.utf8)) }

    /// `idHash` as lower-case hex (how it travels in a PostgreSQL text array).
    public static func idHashHex(_ id: String) -> String { Digest.hex(idHash(id)) }

    /// The key of a value kept for a processor (`StateBackend.values`): the same hash.
    public static func valueKey(_ key: String) -> [UInt8] { idHash(key) }

}
