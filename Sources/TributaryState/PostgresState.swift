import TributaryBase
import TributaryJSON
import TributaryOptions
import TributaryPostgres

/// The state in PostgreSQL (`state.url`), shared by any number of workers on any number of
/// machines (Docs/scale-out.md): the same tables and semantics as `SQLiteState`, in one schema
/// (`state.schema`), plus a lease per source. There is no whole-run lock: each source is run by
/// the worker holding its lease, and ids are claimed atomically inside each batch's
/// transaction (`INSERT ... ON CONFLICT DO NOTHING`), so two workers that fetch the same item
/// emit it once between them.
///
/// A lost connection is reopened by the next call made outside a transaction; until the server
/// answers again, calls fail with a `transient` `StateError`, which `watch` waits out.
///
/// Threading rule (why `@unchecked Sendable` is sound): the engine calls this object from its
/// delivery thread only (`StateBackend` contract), so one thread uses the connection and the
/// `registered` set at a time.
public final class PostgresState: StateBackend, @unchecked Sendable {
    let db: PostgresConnection
    public let url: PostgresURL
    public let schema: String
    /// `<schema>.`, quoted, to prefix table names.
    let s: String
    public var location: String { "\(url.display) (schema \(schema))" }
    /// Sources this process has made sure have a row, so leases can lock it.
    private var registered = Set<String>()
    /// The names in this connection's `tributary_candidates` (`claimDue`), and the connection
    /// (`PostgresConnection.generation`) they were sent on.
    private var sentCandidates = Set<String>()
    private var candidatesGeneration = -1
    private var closed = false
    /// The schema's version: `PostgresSchema.version`, except for a state opened by
    /// `readOnly`, which is never migrated.
    package let version: Int

    public static let defaultSchema = "tributary"

    /// Connects, creates the schema and tables if missing and migrates them. Fails (never
    /// waiting: there is no run lock) with the reason and the URL without its password.
    public init(url: PostgresURL, schema: String = PostgresState.defaultSchema) throws(StateError) {
        self.url = url
        self.schema = schema
        s = PostgresConnection.quote(identifier: schema) + "."
        do { db = try PostgresConnection(url: url) } catch { throw StateError(error.message, transient: error.transient) }
        try PostgresSchema.migrate(db, schema: schema, location: "\(url.display) (schema \(schema))")
        version = PostgresSchema.version
    }

    private init(url: PostgresURL, schema: String, db: PostgresConnection, version: Int) {
        self.url = url
        self.schema = schema
        self.s = PostgresConnection.quote(identifier: schema) + "."
        self.db = db
        self.version = version
    }

    /// Opens the state to read it as it is (`status`): connects, and creates, migrates and
    /// writes nothing. Nil when the schema holds no state yet (no worker has opened it: no
    /// source has run). A state written by a newer tributary is refused; an older one reads
    /// with what it has (totals it lacks read as 0). Fails with the reason and the URL without
    /// its password when the server cannot be reached.
    public static func readOnly(url: PostgresURL, schema: String = PostgresState.defaultSchema) throws(StateError) -> PostgresState? {
        let location = "\(url.display) (schema \(schema))"
        let db: PostgresConnection
        do { db = try PostgresConnection(url: url) } catch { throw StateError(error.message, transient: error.transient) }
        let version: Int?
        do { version = try PostgresSchema.currentVersion(db, schema: schema) } catch {
            db.close()
            throw StateError("PostgreSQL state \(location): \(error.message)", transient: error.transient)
        }
        guard let version else {
            db.close()
            return nil
        }
        if version > PostgresSchema.version {
            db.close()
            throw StateError("the state \(location) was written by a newer tributary (schema \(version), this one knows \(PostgresSchema.version))")
        }
        return PostgresState(url: url, schema: schema, db: db, version: version)
    }

    deinit { close() }

    public func close() {
        guard !closed else { return }
        closed = true
        db.close()
    }

    /// Runs one statement, turning a PostgreSQL error into a `StateError` (transient when the
    /// server could not be reached).
    @discardableResult
    func run(_ sql: String, _ params: [PostgresValue?] = [], binaryResult: Bool = false, prepared: Bool = false) throws(StateError) -> PostgresRows {
        do {
            if prepared { return try db.pipeline([PostgresStatement(sql, params, binaryResult: binaryResult, prepared: true)])[0] }
            return try db.execute(sql, params, binaryResult: binaryResult)
        } catch {
            throw StateError(error.message, transient: error.transient)
        }
    }

    static func text(_ v: String?) -> PostgresValue? { v.map { .text($0) } }
    static func num(_ v: Double?) -> PostgresValue? { v.map { .text(String($0)) } }
    static func num(_ v: Int) -> PostgresValue? { .text(String(v)) }
    static func array(_ v: [String]) -> PostgresValue? { .text(PostgresConnection.textArray(v)) }

    public func begin() throws(StateError) -> any StateTransaction {
        // The BEGIN goes with the transaction's first statement (one round trip fewer).
        db.beginDeferred()
        return PostgresTransaction(state: self)
    }

    static let sourceColumns = "name, last_run, last_success, failures, next_due, last_error, type, fetched_total, emitted_total, failures_total, last_new, first_run, last_duration"
    /// `sourceColumns` of a version-1 state (read by `status` without migrating it): no totals yet.
    static let sourceColumnsV1 = "name, last_run, last_success, failures, next_due, last_error, type, 0, 0, 0, NULL::float8, NULL::float8, NULL::float8"

    /// A `SourceState` from a row of `sourceColumns`.
    static func sourceState(_ r: PostgresRows, _ i: Int) -> SourceState {
        SourceState(lastRun: r.double(i, 1), lastSuccess: r.double(i, 2), failures: r.int(i, 3) ?? 0, nextDue: r.double(i, 4), lastError: r.string(i, 5),
                    type: r.string(i, 6), fetchedTotal: r.int(i, 7) ?? 0, emittedTotal: r.int(i, 8) ?? 0, failuresTotal: r.int(i, 9) ?? 0,
                    lastNew: r.double(i, 10), firstRecorded: r.double(i, 11), lastDuration: r.double(i, 12))
    }

    public func sourceStates(_ names: [String]) throws(StateError) -> [String: SourceState] {
        let r = try run("SELECT \(version >= 2 ? Self.sourceColumns : Self.sourceColumnsV1) FROM \(s)sources WHERE name = ANY($1::text[])", [Self.array(names)])
        var out: [String: SourceState] = [:]
        for i in 0..<r.count { if let name = r.string(i, 0) { out[name] = Self.sourceState(r, i) } }
        return out
    }

    public func counters() throws(StateError) -> [StateCounter] {
        guard version >= 2 else { return [] }
        let r = try run("SELECT name, label, value FROM \(s)counters ORDER BY name, label", [])
        var out: [StateCounter] = []
        for i in 0..<r.count {
            if let n = r.string(i, 0).flatMap(StateCounter.Name.init(rawValue:)), let label = r.string(i, 1) { out.append(StateCounter(n, label, r.int(i, 2) ?? 0)) }
        }
        return out
    }

    public func newPerDay(_ names: [String], since day: Int) throws(StateError) -> [String: [Int: Int]] {
        guard version >= 5, !names.isEmpty else { return [:] }
        let r = try run("SELECT source, day, new FROM \(s)source_days WHERE source = ANY($1::text[]) AND day >= $2::integer", [Self.array(names), Self.num(day)])
        var out: [String: [Int: Int]] = [:]
        for i in 0..<r.count {
            if let name = r.string(i, 0), let d = r.int(i, 1) { out[name, default: [:]][d] = r.int(i, 2) ?? 0 }
        }
        return out
    }

    public func validators(scope: String) throws(StateError) -> [String: HTTPValidators] {
        // Keys are "<scope> <METHOD> <url>" in the "C" collation: a range scan on the primary key.
        let r = try run("SELECT url, etag, last_modified FROM \(s)validators WHERE url >= $1 AND url < $2", [.text(scope + " "), .text(scope + "!")], prepared: true)
        var out: [String: HTTPValidators] = [:]
        for i in 0..<r.count { if let key = r.string(i, 0) { out[key] = HTTPValidators(etag: r.string(i, 1), lastModified: r.string(i, 2)) } }
        return out
    }

    public var readsCostRoundTrips: Bool { true }

    public func validators(scopes: [String]) throws(StateError) -> [String: [String: HTTPValidators]] {
        var out: [String: [String: HTTPValidators]] = [:]
        for scope in scopes { out[scope] = [:] }
        guard !scopes.isEmpty else { return out }
        // The same range scan as `validators(scope:)`, once per scope, in one statement.
        let r = try run("""
            SELECT s.scope, v.url, v.etag, v.last_modified FROM unnest($1::text[]) AS s(scope)
            JOIN \(s)validators v ON v.url >= s.scope || ' ' AND v.url < s.scope || '!'
            """, [Self.array(scopes)], prepared: true)
        for i in 0..<r.count {
            if let scope = r.string(i, 0), let key = r.string(i, 1) { out[scope, default: [:]][key] = HTTPValidators(etag: r.string(i, 2), lastModified: r.string(i, 3)) }
        }
        return out
    }

    public func cachedBody(_ key: String) throws(StateError) -> [UInt8]? {
        let r = try run("SELECT body FROM \(s)validators WHERE url = $1", [.text(key)], binaryResult: true)
        return r.count > 0 ? r.bytes(0, 0) ?? [] : nil
    }

    public func values(namespace: String, keys: [String]) throws(StateError) -> [String: [UInt8]] {
        guard !keys.isEmpty else { return [:] }
        let hex = keys.map { Digest.hex(StateKeys.valueKey($0)) }
        let r = try run("""
            SELECT encode(key_hash, 'hex'), value FROM \(s)kv WHERE ns = $1 AND key_hash IN (SELECT decode(k, 'hex') FROM unnest($2::text[]) AS k)
            """, [.text(namespace), Self.array(hex)], binaryResult: true, prepared: true)
        var byHex: [String: [UInt8]] = [:]
        for i in 0..<r.count { if let k = r.bytes(i, 0), let v = r.bytes(i, 1) { byHex[String(decoding: k, as: UTF8.self)] = v } }
        var out: [String: [UInt8]] = [:]
        for (key, h) in zip(keys, hex) { if let v = byHex[h] { out[key] = v } }
        return out
    }

    public func window(sink: String) throws(StateError) -> [[UInt8]] {
        let r = try run("SELECT line FROM \(s)recent_items WHERE sink = $1 ORDER BY sort_time DESC", [.text(sink)])
        return (0..<r.count).compactMap { r.bytes($0, 0) }
    }

    public func quotaUsed(source: String, per: Double, now: Double) throws(StateError) -> (used: Int, resets: Double) {
        let r = try run("SELECT window_start, requests FROM \(s)quotas WHERE source = $1", [.text(source)])
        guard r.count > 0, let start = r.double(0, 0), now < start + per else { return (0, now + per) }
        return (r.int(0, 1) ?? 0, start + per)
    }

    public func touchConfigured(_ names: [String], now: Double) throws(StateError) {
        try run("UPDATE \(s)sources SET in_config = $1 WHERE name = ANY($2::text[])", [Self.num(now), Self.array(names)])
    }

    @discardableResult
    public func prune(retention: Double, now: Double) throws(StateError) -> Int {
        let cutoff = now - retention
        do {
            return try db.transaction { () throws(PostgresError) -> Int in
                var removed = 0
                for sql in ["DELETE FROM \(s)emitted WHERE last_seen < $1", "DELETE FROM \(s)validators WHERE updated < $1", "DELETE FROM \(s)kv WHERE updated < $1",
                            "DELETE FROM \(s)sources WHERE in_config < $1 AND (lease_until IS NULL OR lease_until < now())",
                            "DELETE FROM \(s)quotas WHERE source NOT IN (SELECT name FROM \(s)sources) AND window_start < $1"] {
                    removed += try db.execute(sql, [Self.num(cutoff)]).affected
                }
                removed += try db.execute("DELETE FROM \(s)source_days WHERE day < $1::integer", [Self.num(NewPerDay.day(now) - NewPerDay.keptDays)]).affected
                return removed
            }
        } catch {
            throw StateError(error.message, transient: error.transient)
        }
    }

    // MARK: leases

    /// Gives every source a row (a source that never ran has none), so a lease can lock it.
    private func register(_ sources: [SourceKey]) throws(StateError) {
        let missing = sources.filter { !registered.contains($0.name) }
        guard !missing.isEmpty else { return }
        try run("""
            INSERT INTO \(s)sources(name, type, failures, in_config)
            SELECT n, t, 0, extract(epoch FROM now()) FROM unnest($1::text[], $2::text[]) AS u(n, t) ORDER BY n
            ON CONFLICT (name) DO NOTHING
            """, [Self.array(missing.map(\.name)), Self.array(missing.map(\.type))])
        for m in missing { registered.insert(m.name) }
    }

    /// The database's clock decides what is due and when a lease ends (`now` is not used), so
    /// workers whose clocks differ agree. One statement leases the due sources: rows locked by
    /// another worker's claim in progress are skipped, not waited for.
    ///
    /// A lease `worker` holds already counts as free: the candidates are the sources this
    /// worker is not running, so a lease of its own on one of them is left over from a run
    /// whose release could not be written (the state went away under it), or from an earlier
    /// process of the same name. Such a source runs again as soon as it is due, not when that
    /// lease runs out (`state.lease` later).
    ///
    /// The candidates are not sent with every look: the connection keeps them in a temporary
    /// table (`pg_temp.tributary_candidates`, its own), and a look sends only the names that
    /// joined or left since the last one (a source that starts running leaves, and joins again
    /// when it is due), in the same round trip as the claim. A new connection starts the table
    /// over; a look that fails sends the whole list with the next one.
    public func claimDue(_ candidates: [SourceKey], worker: String, lease: Double, limit: Int, now: Double) throws(StateError) -> DueClaim {
        guard !candidates.isEmpty else { return DueClaim(claimed: [], nextCheck: nil) }
        try register(candidates)
        let wanted = Set(candidates.map(\.name))
        var statements: [PostgresStatement] = []
        if candidatesGeneration != db.generation {
            // A new connection (temporary tables are the session's): start over.
            statements.append(PostgresStatement("CREATE TEMPORARY TABLE IF NOT EXISTS tributary_candidates(name text PRIMARY KEY)"))
            statements.append(PostgresStatement("TRUNCATE pg_temp.tributary_candidates"))
            sentCandidates = []
        }
        let left = sentCandidates.subtracting(wanted)
        let joined = wanted.subtracting(sentCandidates)
        if !left.isEmpty {
            statements.append(PostgresStatement("DELETE FROM pg_temp.tributary_candidates WHERE name = ANY($1::text[])", [Self.array(left.sorted())], prepared: true))
        }
        if !joined.isEmpty {
            statements.append(PostgresStatement("INSERT INTO pg_temp.tributary_candidates SELECT unnest($1::text[])", [Self.array(joined.sorted())], prepared: true))
        }
        if left.count + joined.count > 1000 {
            // The planner's idea of the table's size (it has no statistics otherwise).
            statements.append(PostgresStatement("ANALYZE pg_temp.tributary_candidates"))
        }
        // The claimed rows (no time), then a row per other candidate with when it is due or its
        // lease ends, named when that is what kept it out (not due, or another worker's lease),
        // nameless when it is due and free but past the limit or locked by another worker's
        // claim in progress (the rows as they were before this claim, which changed only the
        // claimed ones).
        statements.append(PostgresStatement("""
            WITH claimed AS (
                UPDATE \(s)sources AS s SET lease_owner = $1, lease_until = now() + make_interval(secs => $2::float8)
                WHERE s.name IN (
                    SELECT name FROM \(s)sources
                    WHERE name IN (SELECT name FROM pg_temp.tributary_candidates) AND (next_due IS NULL OR next_due <= extract(epoch FROM now()))
                      AND (lease_until IS NULL OR lease_until < now() OR lease_owner = $1)
                    ORDER BY next_due NULLS FIRST LIMIT $3 FOR UPDATE SKIP LOCKED)
                RETURNING s.name, s.last_run, s.last_success, s.failures, s.next_due, s.last_error)
            SELECT name, last_run, last_success, failures, next_due, last_error, NULL::float8 FROM claimed
            UNION ALL
            SELECT CASE WHEN next_due > extract(epoch FROM now()) OR (lease_until >= now() AND lease_owner IS DISTINCT FROM $1) THEN name END,
                NULL, NULL, NULL, NULL, NULL,
                GREATEST(coalesce(next_due, 0), CASE WHEN lease_owner = $1 THEN 0 ELSE coalesce(extract(epoch FROM lease_until), 0) END)
            FROM \(s)sources
            WHERE name IN (SELECT name FROM pg_temp.tributary_candidates) AND name NOT IN (SELECT name FROM claimed)
            """, [.text(worker), Self.num(lease), Self.num(max(0, limit))]))
        let r: PostgresRows
        do { r = try db.pipeline(statements).last! } catch {
            candidatesGeneration = -1  // what the table holds is unknown: sent again in full
            throw StateError(error.message, transient: error.transient)
        }
        candidatesGeneration = db.generation
        sentCandidates = wanted
        var claimed: [(name: String, state: SourceState)] = []
        var later: [(name: String, at: Double)] = []
        var next: Double? = nil
        for i in 0..<r.count {
            guard let at = r.double(i, 6) else {
                if let name = r.string(i, 0) { claimed.append((name, Self.sourceState(r, i))) }
                continue
            }
            next = min(next ?? at, at)
            if let name = r.string(i, 0) { later.append((name, at)) }
        }
        claimed.sort { ($0.state.nextDue ?? -Double.infinity) < ($1.state.nextDue ?? -Double.infinity) }
        return DueClaim(claimed: claimed, nextCheck: next, later: later)
    }

    public func lease(_ sources: [SourceKey], worker: String, lease: Double) throws(StateError) -> [String: String] {
        guard !sources.isEmpty else { return [:] }
        let names = sources.map(\.name)
        let got = try run("""
            INSERT INTO \(s)sources AS s (name, type, failures, in_config, lease_owner, lease_until)
            SELECT n, t, 0, extract(epoch FROM now()), $3, now() + make_interval(secs => $4::float8)
            FROM unnest($1::text[], $2::text[]) AS u(n, t) ORDER BY n
            ON CONFLICT (name) DO UPDATE SET lease_owner = excluded.lease_owner, lease_until = excluded.lease_until
            WHERE s.lease_owner IS NULL OR s.lease_until IS NULL OR s.lease_until < now() OR s.lease_owner = excluded.lease_owner
            RETURNING s.name
            """, [Self.array(names), Self.array(sources.map(\.type)), .text(worker), Self.num(lease)])
        var granted = Set<String>()
        for i in 0..<got.count { if let n = got.string(i, 0) { granted.insert(n) } }
        for n in names { registered.insert(n) }
        let denied = names.filter { !granted.contains($0) }
        guard !denied.isEmpty else { return [:] }
        let holders = try run("SELECT name, coalesce(lease_owner, '') FROM \(s)sources WHERE name = ANY($1::text[])", [Self.array(denied)])
        var out: [String: String] = [:]
        for n in denied { out[n] = "another worker" }
        for i in 0..<holders.count { if let n = holders.string(i, 0), let h = holders.string(i, 1), !h.isEmpty { out[n] = h } }
        return out
    }

    public func renewLeases(_ sources: [String], worker: String, lease: Double) throws(StateError) -> [String: String] {
        guard !sources.isEmpty else { return [:] }
        let renewed = try run("""
            UPDATE \(s)sources SET lease_until = now() + make_interval(secs => $3::float8)
            WHERE name = ANY($1::text[]) AND lease_owner = $2 RETURNING name
            """, [Self.array(sources), .text(worker), Self.num(lease)])
        var ours = Set<String>()
        for i in 0..<renewed.count { if let n = renewed.string(i, 0) { ours.insert(n) } }
        let lost = sources.filter { !ours.contains($0) }
        guard !lost.isEmpty else { return [:] }
        let holders = try run("SELECT name, coalesce(lease_owner, '') FROM \(s)sources WHERE name = ANY($1::text[])", [Self.array(lost)])
        var out: [String: String] = [:]
        for n in lost { out[n] = "" }
        for i in 0..<holders.count { if let n = holders.string(i, 0), let h = holders.string(i, 1) { out[n] = h } }
        return out
    }
}
