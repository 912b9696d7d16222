import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether the write-ahead log beside a database is that database's, found before SQLite is
/// let near the two files. SQLite cannot tell: a `-wal` copied from another database (a
/// support engineer mixing up a user's files) is recovered as the database's own, and the
/// first connection that closes copies its pages into the file and deletes it: the database
/// is gone. Nothing in the log names its database, so the answer comes from what the two files
/// hold, read without writing, locking or creating anything:
///
/// 1. No log, or none with a committed transaction: nothing SQLite would apply.
/// 2. A log another process has open (SQLite's locks on the index and the database file) is
///    that process's SQLite's own, in use: not questioned.
/// 3. The log's page size is the database's: a database's page size cannot change while it
///    is in WAL mode.
/// 4. Every page the log's last commit makes part of the database is in the log or in the
///    file: a log cannot name pages that neither holds.
/// 5. The database read with the log applied (``LogView``) passes SQLite's `quick_check`
///    where the file alone does, and `identity` (a query naming the database: Core Data's
///    store UUID) answers the same with and without the log.
///
/// A log that passes may still be another copy's of the same database whose pages the file
/// still fits (the same store on another day): nothing in the files tells those apart.
public enum LogOwnership {
    public enum Verdict: Equatable, Sendable {
        /// No log, or none with a committed transaction in it.
        case noLog
        /// Another process has the database open: the log is its SQLite's, in use.
        case inUse
        /// Checked: the log fits the database.
        case belongs
        /// The log cannot be this database's; why, in a sentence.
        case foreign(String)
    }

    /// A query whose answer (first column of the first row) names the database, and what the
    /// answer is called in messages ("store UUID").
    public struct Identity: Sendable {
        public var query: String
        public var name: String

        public init(query: String, name: String) {
            self.query = query
            self.name = name
        }
    }

    /// The verdict on the log beside the database at `path`, its identity read with `identity`.
    /// Remembered for the files as
    /// they are (device, inode, size, modification time of both): asking again costs a `stat`.
    ///
    /// The two files are judged only as they stood for the whole check: an app that writes,
    /// checkpoints or closes meanwhile changes one of them (size, modification time), and the
    /// check starts again; files that keep changing are in use, and not questioned.
    public static func verdict(database path: String, identity: Identity?) -> Verdict {
        for _ in 0..<5 {
            guard let key = Key(database: path) else { return .noLog }
            if let known = memo.value(key) { return known }
            let verdict = decide(database: path, identity: identity)
            guard Key(database: path) == key else { continue }
            if verdict != .inUse { memo.store(key, verdict) }
            return verdict
        }
        return .inUse
    }

    private static func decide(database path: String, identity: Identity?) -> Verdict {
        // A log or store that cannot be read here is left for SQLite to report when it opens them.
        guard let read = try? WriteAheadLog.read(path + "-wal") else { return .noLog }
        guard read.committedFrames > 0 else { return .noLog }
        let log = read
        if inUseElsewhere(path) { return .inUse }
        guard let withLog = try? LogView(database: path, log: log), let alone = try? LogView(database: path, log: nil)
        else { return .belongs }
        if log.pageSize != withLog.pageSize {
            return .foreign("its pages are \(log.pageSize) bytes, the store's \(withLog.pageSize)")
        }
        let missing = withLog.missingPages()
        if let first = missing.first {
            return .foreign(
                "its last transaction makes the store \(log.databasePages) pages long, but page \(first) is in neither the store's file (\(withLog.filePages) pages) nor the log"
            )
        }
        let checked = check(withLog, identity: identity)
        if let problem = checked.problem {
            // The file alone damaged too: the store is, and the log is not shown to be foreign.
            guard check(alone, identity: nil).problem == nil else { return .belongs }
            return .foreign(
                "with it applied, SQLite finds the store damaged (\(problem)), and without it the store is whole")
        }
        if let identity, let own = check(alone, identity: identity).identity, own != checked.identity {
            return .foreign(
                checked.identity.map {
                    "with it applied, the store is another one: its \(identity.name) is \($0), the store file's \(own)"
                } ?? "with it applied, the store has no \(identity.name)")
        }
        return .belongs
    }

    /// Whether `log`, found under another name (a migrated store's own log whose main file was
    /// renamed), is what the database at `path` lacks: the file alone is damaged (a checkpoint
    /// cut short), whole with `log` applied, and the same database by `identity` where the
    /// file alone answers. A file that is whole without it is never changed by it.
    public static func fits(_ log: WriteAheadLog, database path: String, identity: Identity?) -> Bool {
        guard log.committedFrames > 0, let withLog = try? LogView(database: path, log: log),
            let alone = try? LogView(database: path, log: nil),
            log.pageSize == withLog.pageSize, withLog.missingPages().isEmpty
        else { return false }
        let applied = check(withLog, identity: identity)
        let own = check(alone, identity: identity)
        guard applied.problem == nil, own.problem != nil else { return false }
        if let mine = own.identity, mine != applied.identity { return false }
        return true
    }

    /// What SQLite's quick check finds in `view` (nil: nothing), and `identity`'s answer there.
    private static func check(_ view: LogView, identity: Identity?) -> (problem: String?, identity: String?) {
        let connection: SQLiteConnection
        do {
            connection = try view.connection()
        } catch {
            return ("\(describe(error))", nil)
        }
        defer { connection.close() }
        var problem: String?
        do {
            // One line per problem (the first names the database: "*** in database main ***").
            let rows = try connection.rows("PRAGMA quick_check(3)").compactMap { $0.first?.textValue }
            if rows != ["ok"] {
                problem = rows.flatMap { $0.split(separator: "\n") }.filter { !$0.hasPrefix("***") }
                    .joined(separator: "; ")
            }
        } catch {
            problem = describe(error)
        }
        var answer: String?
        if problem == nil, let identity {
            answer = (try? connection.scalar(identity.query)).flatMap { $0?.textValue }
        }
        return (problem, answer)
    }

    private static func describe(_ error: any Error) -> String {
        (error as? SQLiteError)?.message ?? "\(error)"
    }

    /// Whether another process has the database open in WAL mode: it keeps a read lock on its
    /// index's byte 128 (the unix VFS's dead-man switch) and a shared lock on the database's
    /// lock bytes for as long as it is open. Asked only when no connection of this process has
    /// the file open (closing the descriptor opened to ask would drop their locks otherwise):
    /// when one has, the log was looked at when it opened.
    private static func inUseElsewhere(_ path: String) -> Bool {
        if DatabaseFileAccess.isOpen(path) { return true }
        return DatabaseFileAccess.isLockedElsewhere(path + "-shm", from: 128, count: 1)
            || DatabaseFileAccess.isLockedElsewhere(path, from: 0x4000_0000, count: 512)
    }

    // MARK: Remembered verdicts

    struct FileState: Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64

        init?(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            #if canImport(Darwin)
                modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
            #else
                modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            #endif
        }
    }

    /// The two files as they stand; nil when there is no log with something in it.
    struct Key: Hashable {
        var database: FileState
        var log: FileState

        init?(database path: String) {
            guard let log = FileState(path + "-wal"), log.size > 0, let database = FileState(path) else { return nil }
            self.database = database
            self.log = log
        }
    }

    private final class Memo: @unchecked Sendable {
        private let mutex = NSLock()
        private var verdicts: [Key: Verdict] = [:]

        func value(_ key: Key) -> Verdict? {
            mutex.lock()
            defer { mutex.unlock() }
            return verdicts[key]
        }

        func store(_ key: Key, _ verdict: Verdict) {
            mutex.lock()
            defer { mutex.unlock() }
            if verdicts.count > 256 { verdicts.removeAll() }
            verdicts[key] = verdict
        }
    }

    private static let memo = Memo()
}
