import TributaryBase
import TributaryJSON
import TributaryOptions
import TributaryPostgres

/// One batch in one PostgreSQL transaction (`BEGIN` ... `COMMIT`, read committed).
///
/// Round trips: the `BEGIN` goes with the first statement (`PostgresConnection.beginDeferred`),
/// and the writes whose answer nothing needs (validators, counts, counters, values, the run
/// record, the lease's release) are queued and sent with the next statement that reads, or
/// with the `COMMIT`, in one pipeline: a batch of new ids costs two round trips (the claim, then
/// the writes and the commit), and one more when some ids were known. The order of the
/// statements is the order of the calls, so the transaction does exactly what it did one
/// statement at a time; a queued write that fails makes the read or commit it goes with fail.
/// The statements run for every batch are prepared once per connection.
///
/// `claim` inserts the batch's ids with `ON CONFLICT DO NOTHING`, in the order of their keys
/// (`StateKeys`: so two workers' batches lock shared ids in the same order and cannot deadlock
/// over them): an id another
/// worker's open transaction has just inserted makes this insert wait until that transaction
/// ends; if it committed, the id is known here and is not emitted again; if it rolled back,
/// the id is new here. Either way exactly one of the two emits it.
final class PostgresTransaction: StateTransaction {
    let state: PostgresState
    private var open = true

    /// Writes not sent yet, in order.
    private var pending: [PostgresStatement] = [] {
        didSet { if pending.isEmpty { recorded = [:] } }
    }
    /// The index in `pending` of each source's queued run record (`recordRun`).
    private var recorded: [String: Int] = [:]

    init(state: PostgresState) { self.state = state }

    /// The queued writes, then `sql`, in one round trip; `sql`'s rows.
    private func query(_ sql: String, _ params: [PostgresValue?], binaryResult: Bool = false) throws(StateError) -> PostgresRows {
        let all = pending + [PostgresStatement(sql, params, binaryResult: binaryResult, prepared: true)]
        pending = []
        do { return try state.db.pipeline(all).last! } catch { throw StateError(error.message, transient: error.transient) }
    }

    /// Sends the queued writes (before a read made through the state itself).
    private func flush() throws(StateError) {
        guard !pending.isEmpty else { return }
        let all = pending
        pending = []
        do { _ = try state.db.pipeline(all) } catch { throw StateError(error.message, transient: error.transient) }
    }

    /// Queues a write, sent with the next read or the commit.
    private func write(_ sql: String, _ params: [PostgresValue?]) {
        pending.append(PostgresStatement(sql, params, prepared: true))
    }

    deinit { if open { rollback() } }

    private var s: String { state.s }

    func claim(_ ids: [EmittedID], now: Double) throws(StateError) -> [KnownID?] {
        guard !ids.isEmpty else { return [] }
        // Keyed on the id's SHA-256 (`StateKeys`), sent as hex and decoded by the server.
        let keys = ids.map { StateKeys.idHashHex($0.id) }
        let inserted = try query("""
            INSERT INTO \(s)emitted(id_hash, id, source, first_seen, last_seen, hash)
            SELECT decode(k, 'hex'), id, source, $5::float8, $5::float8, hash
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS v(k, id, source, hash) ORDER BY k COLLATE "C"
            ON CONFLICT (id_hash) DO NOTHING
            RETURNING encode(id_hash, 'hex')
            """, [PostgresState.array(keys), PostgresState.array(ids.map(\.id)), PostgresState.array(ids.map(\.source)), PostgresState.array(ids.map(\.hash)),
                  PostgresState.num(now)])
        var new = Set<String>()
        for i in 0..<inserted.count { if let k = inserted.string(i, 0) { new.insert(k) } }
        let old = ids.indices.filter { !new.contains(keys[$0]) }
        guard !old.isEmpty else { return ids.map { _ in nil } }
        let oldKeys = PostgresState.array(old.map { keys[$0] })
        // A new statement, so it sees what other transactions committed while the insert waited.
        let rows = try query("""
            SELECT encode(id_hash, 'hex'), source, hash FROM \(s)emitted WHERE id_hash IN (SELECT decode(k, 'hex') FROM unnest($1::text[]) AS k)
            """, [oldKeys])
        var known: [String: KnownID] = [:]
        for i in 0..<rows.count {
            if let k = rows.string(i, 0), let source = rows.string(i, 1), let hash = rows.string(i, 2) { known[k] = KnownID(source: source, hash: hash) }
        }
        // As in SQLite: the hash follows the source that emitted the id; `last_seen` (what
        // retention goes by) is refreshed at most once a day. Nothing reads its answer: it goes
        // with the next statement.
        write("""
            UPDATE \(s)emitted AS e SET last_seen = $4::float8, hash = CASE WHEN e.source = v.source THEN v.hash ELSE e.hash END
            FROM unnest($1::text[], $2::text[], $3::text[]) AS v(k, source, hash)
            WHERE e.id_hash = decode(v.k, 'hex') AND ((e.source = v.source AND e.hash <> v.hash) OR e.last_seen < $4::float8 - 86400)
            """, [oldKeys, PostgresState.array(old.map { ids[$0].source }), PostgresState.array(old.map { ids[$0].hash }), PostgresState.num(now)])
        return keys.map { new.contains($0) ? nil : known[$0] }
    }

    /// One statement for all the values (a batch of stories writes hundreds), in the order of
    /// the keys' hashes like `claimValues`; a key given twice keeps its last value.
    func putValues(namespace: String, _ values: [(key: String, value: [UInt8])], now: Double) throws(StateError) {
        guard !values.isEmpty else { return }
        var last: [String: [UInt8]] = [:]
        for (key, value) in values { last[Digest.hex(StateKeys.valueKey(key))] = value }
        let keys = last.keys.sorted()
        write("""
            INSERT INTO \(s)kv(ns, key_hash, value, updated)
            SELECT $1, decode(k, 'hex'), decode(v, 'hex'), $4::float8 FROM unnest($2::text[], $3::text[]) AS t(k, v) ORDER BY k COLLATE "C"
            ON CONFLICT (ns, key_hash) DO UPDATE SET value = excluded.value, updated = excluded.updated
            """, [.text(namespace), PostgresState.array(keys), PostgresState.array(keys.map { Digest.hex(last[$0]!) }), PostgresState.num(now)])
    }

    /// The keys absent are inserted (`ON CONFLICT DO NOTHING`) and the others locked
    /// (`SELECT ... FOR UPDATE`), each statement in the order of the keys' hashes, so two
    /// workers take shared keys in the same order and cannot deadlock over them: a key another
    /// worker's open transaction inserted or locked makes this one wait until that transaction
    /// ends, then the value it committed is read (read committed: the row's latest version).
    func claimValues(namespace: String, _ values: [(key: String, value: [UInt8])], now: Double) throws(StateError) -> [[UInt8]?] {
        guard !values.isEmpty else { return [] }
        let hex = values.map { Digest.hex(StateKeys.valueKey($0.key)) }
        var first: [String: Int] = [:]
        for i in values.indices where first[hex[i]] == nil { first[hex[i]] = i }
        let keys = first.keys.sorted()
        let inserted = try query("""
            INSERT INTO \(s)kv(ns, key_hash, value, updated)
            SELECT $1, decode(k, 'hex'), decode(v, 'hex'), $4::float8 FROM unnest($2::text[], $3::text[]) AS t(k, v) ORDER BY k COLLATE "C"
            ON CONFLICT (ns, key_hash) DO NOTHING
            RETURNING encode(key_hash, 'hex')
            """, [.text(namespace), PostgresState.array(keys), PostgresState.array(keys.map { Digest.hex(values[first[$0]!].value) }), PostgresState.num(now)])
        var new = Set<String>()
        for i in 0..<inserted.count { if let k = inserted.string(i, 0) { new.insert(k) } }
        var found: [String: [UInt8]] = [:]
        let held = keys.filter { !new.contains($0) }
        if !held.isEmpty {
            let r = try query("""
                SELECT encode(key_hash, 'hex'), value FROM \(s)kv WHERE ns = $1 AND key_hash IN (SELECT decode(k, 'hex') FROM unnest($2::text[]) AS k)
                ORDER BY key_hash FOR UPDATE
                """, [.text(namespace), PostgresState.array(held)], binaryResult: true)
            for i in 0..<r.count { if let k = r.bytes(i, 0), let v = r.bytes(i, 1) { found[String(decoding: k, as: UTF8.self)] = v } }
        }
        // A key given twice: the second finds the first's value.
        return values.indices.map { i in
            let k = hex[i]
            if new.contains(k) { return first[k] == i ? nil : values[first[k]!].value }
            return found[k]
        }
    }

    func values(namespace: String, keys: [String]) throws(StateError) -> [String: [UInt8]] {
        // The transaction's own connection: it sees what this transaction wrote.
        try flush()
        return try state.values(namespace: namespace, keys: keys)
    }

    func storeValidators(_ validators: [(key: String, response: CachedResponse)], now: Double) throws(StateError) {
        for (key, r) in validators {
            write("""
                INSERT INTO \(s)validators(url, etag, last_modified, body, updated) VALUES($1, $2, $3, $4::bytea, $5::float8)
                ON CONFLICT (url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified, body = excluded.body, updated = excluded.updated
                """, [.text(key), PostgresState.text(r.etag), PostgresState.text(r.lastModified), .bytes(r.body), PostgresState.num(now)])
        }
    }

    func replaceWindow(sink: String, items: [WindowItem]) throws(StateError) {
        write("DELETE FROM \(s)recent_items WHERE sink = $1", [.text(sink)])
        guard !items.isEmpty else { return }
        // Lines are JSON text (UTF-8, controls escaped): kept as text.
        write("""
            INSERT INTO \(s)recent_items(sink, id_hash, id, sort_time, line)
            SELECT $1, decode(k, 'hex'), id, t, line FROM unnest($5::text[], $2::text[], $3::float8[], $4::text[]) AS w(k, id, t, line)
            ON CONFLICT (sink, id_hash) DO UPDATE SET sort_time = excluded.sort_time, line = excluded.line
            """, [.text(sink), PostgresState.array(items.map(\.id)), .text("{" + items.map { String($0.sortTime) }.joined(separator: ",") + "}"),
                  PostgresState.array(items.map { String(decoding: $0.line, as: UTF8.self) }), PostgresState.array(items.map { StateKeys.idHashHex($0.id) })])
    }

    func recordRun(_ run: RunRecord) throws(StateError) {
        write("""
            INSERT INTO \(s)sources AS s (name, type, last_run, last_success, failures, next_due, last_error, in_config, failures_total, first_run, last_duration)
            VALUES($1, $2, $3::float8, CASE WHEN $4::boolean THEN $3::float8 END, CASE WHEN $4::boolean THEN 0 ELSE 1 END, $5::float8, $6, $3::float8,
                CASE WHEN $4::boolean THEN 0 ELSE 1 END, $3::float8, $7::float8)
            ON CONFLICT (name) DO UPDATE SET type = $2, last_run = $3::float8,
                last_success = CASE WHEN $4::boolean THEN $3::float8 ELSE s.last_success END,
                failures = CASE WHEN $4::boolean THEN 0 ELSE s.failures + 1 END,
                next_due = $5::float8, last_error = $6, in_config = $3::float8,
                failures_total = s.failures_total + CASE WHEN $4::boolean THEN 0 ELSE 1 END,
                first_run = COALESCE(s.first_run, $3::float8), last_duration = $7::float8,
                lease_owner = CASE WHEN s.lease_owner = $8 THEN NULL ELSE s.lease_owner END,
                lease_until = CASE WHEN s.lease_owner = $8 THEN NULL ELSE s.lease_until END
            """, [.text(run.source), .text(run.type), PostgresState.num(run.now), .text(run.success ? "true" : "false"), PostgresState.num(run.nextDue), PostgresState.text(run.error),
                  PostgresState.num(run.seconds), nil])
        // `releaseLease` of this source fills in `$8` (the worker) rather than adding a statement.
        recorded[run.source] = pending.count - 1
        if let per = run.quotaPer, run.requests > 0 {
            write("""
                INSERT INTO \(s)quotas AS q (source, window_start, requests) VALUES($1, $2::float8, $3::integer)
                ON CONFLICT (source) DO UPDATE SET
                    requests = CASE WHEN $2::float8 >= q.window_start + $4::float8 THEN $3::integer ELSE q.requests + $3::integer END,
                    window_start = CASE WHEN $2::float8 >= q.window_start + $4::float8 THEN $2::float8 ELSE q.window_start END
                """, [.text(run.source), PostgresState.num(run.now), PostgresState.num(run.requests), PostgresState.num(per)])
        }
    }

    func addSourceCounts(_ c: SourceCounts) throws(StateError) {
        write("""
            INSERT INTO \(s)sources AS s (name, type, failures, in_config, fetched_total, emitted_total, last_new, first_run)
            VALUES($1, $2, 0, $3::float8, $4::bigint, $5::bigint, CASE WHEN $5::bigint > 0 THEN $3::float8 END, $3::float8)
            ON CONFLICT (name) DO UPDATE SET fetched_total = s.fetched_total + $4::bigint, emitted_total = s.emitted_total + $5::bigint,
                last_new = CASE WHEN $5::bigint > 0 THEN $3::float8 ELSE s.last_new END, first_run = COALESCE(s.first_run, $3::float8)
            """, [.text(c.source), .text(c.type), PostgresState.num(c.now), PostgresState.num(c.fetched), PostgresState.num(c.new)])
        guard c.new > 0 else { return }
        // Queued with the rest: no round trip of its own.
        write("""
            INSERT INTO \(s)source_days AS d (source, day, new) VALUES($1, $2::integer, $3::bigint)
            ON CONFLICT (source, day) DO UPDATE SET new = d.new + $3::bigint
            """, [.text(c.source), PostgresState.num(NewPerDay.day(c.now)), PostgresState.num(c.new)])
    }

    func addCounters(_ deltas: [StateCounter]) throws(StateError) {
        let changed = deltas.filter { $0.value != 0 }
        guard !changed.isEmpty else { return }
        // One statement for the batch: the three lists unnested side by side.
        write("""
            INSERT INTO \(s)counters AS c (name, label, value)
            SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
            ON CONFLICT (name, label) DO UPDATE SET value = c.value + excluded.value
            """, [PostgresState.array(changed.map(\.name.rawValue)), PostgresState.array(changed.map(\.label)), PostgresState.array(changed.map { String($0.value) })])
    }

    func setNextDue(source: String, type: String, due: Double, now: Double) throws(StateError) {
        write("""
            INSERT INTO \(s)sources(name, type, failures, next_due, in_config) VALUES($1, $2, 0, $3::float8, $4::float8)
            ON CONFLICT (name) DO UPDATE SET next_due = $3::float8, in_config = $4::float8
            """, [.text(source), .text(type), PostgresState.num(due), PostgresState.num(now)])
    }

    func releaseLease(source: String, worker: String) throws(StateError) {
        if let i = recorded[source] {
            // The run's record, still queued, ends the lease in the same statement (the same
            // row, the same condition: only this worker's lease).
            var params = pending[i].params
            params[7] = .text(worker)
            pending[i] = PostgresStatement(pending[i].sql, params, prepared: true)
            recorded[source] = nil
            return
        }
        write("UPDATE \(s)sources SET lease_owner = NULL, lease_until = NULL WHERE name = $1 AND lease_owner = $2", [.text(source), .text(worker)])
    }

    func commit() throws(StateError) {
        guard open else { return }
        open = false
        let all = pending
        pending = []
        do { try state.db.commit(with: all) } catch {
            state.db.rollback()
            throw StateError(error.message, transient: error.transient)
        }
    }

    func rollback() {
        guard open else { return }
        open = false
        pending = []
        state.db.rollback()
    }
}
