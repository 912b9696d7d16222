import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// A `-wal` copied beside a store from another database (a support engineer mixing up a
/// user's files): every entry point refuses before SQLite sees it, with 259 naming the log,
/// and leaves the store and the log byte for byte as they were, with nothing beside them. The
/// store's own log, left by an app that was still running, is read and migrated as before.
@Suite("A write-ahead log that is not the store's")
struct ForeignLogTests {
    let folder = TemporaryDirectory("molt-foreign-log")

    /// The Blog example store with a log from another database beside it: its own schema, or
    /// another Blog store's (same pages but its metadata row changed).
    func store(logFrom kind: String) throws -> URL {
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
        let other = folder.path("other.sqlite").path
        switch kind {
        case "notes":
            let connection = try SQLiteConnection(path: other, mode: .create)
            try connection.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
            try connection.execute("CREATE TABLE notes (text TEXT)")
            for index in 0..<50 { try connection.run("INSERT INTO notes VALUES (?)", [.text("note \(index)")]) }
            try connection.keepLogOnClose()
            connection.close()
        default:
            try FileManager.default.copyItem(atPath: store.path, toPath: other)
            let connection = try SQLiteConnection(path: other, mode: .readWrite)
            try connection.execute("PRAGMA wal_autocheckpoint = 0")
            try connection.execute("UPDATE Z_METADATA SET Z_UUID = 'ANOTHER-STORE'")
            try connection.keepLogOnClose()
            connection.close()
        }
        try FileManager.default.copyItem(atPath: other + "-wal", toPath: store.path + "-wal")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: other + suffix) }
        return store
    }

    /// Runs `body`, expects the refusal, and checks nothing changed.
    func expectRefused(_ store: URL, _ what: String, _ body: () throws -> Void) throws {
        let before = try FailedRun.fileNames(folder)
        let bytes = (try Data(contentsOf: store), try Data(contentsOf: URL(fileURLWithPath: store.path + "-wal")))
        let error = #expect(throws: MoltError.self, "\(what)") { try body() }
        #expect(error?.code == .fileReadCorruptFile, "\(what): \(String(describing: error))")
        #expect(error?.message.contains("is not this store's") == true, "\(what): \(String(describing: error))")
        #expect(error?.location?.file == store.path + "-wal", "\(what)")
        #expect(try Data(contentsOf: store) == bytes.0, "\(what): the store's bytes")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path + "-wal")) == bytes.1, "\(what): the log's bytes")
        #expect(try FailedRun.fileNames(folder) == before, "\(what): nothing beside the store")
    }

    @Test("every entry point refuses a log from another database and changes nothing", arguments: ["notes", "blog"])
    func everyEntryPoint(kind: String) throws {
        let store = try store(logFrom: kind)
        let bundle = try ModelBundle(url: Examples.bundle)
        let (blog, blog2) = (try bundle.model(named: "Blog"), try bundle.model(named: "Blog 2"))
        let mapping = try MigrationFixtures.mapping("Blog/Blog-to-Blog2.xml")
        func heavyweight(dryRun: Bool = false) -> HeavyweightMigration {
            var options = MigrationOptions()
            options.dryRun = dryRun
            return HeavyweightMigration(
                store: store, source: blog, destination: blog2, mapping: mapping, options: options)
        }
        try expectRefused(store, "open") { _ = try ObjectStore.open(at: store, models: .bundle(bundle)) }
        try expectRefused(store, "plan") { _ = try heavyweight().plan() }
        try expectRefused(store, "dry run") { try heavyweight(dryRun: true).run() }
        try expectRefused(store, "run") { try heavyweight().run() }
        let step = StoreMigration(store: store, from: .bundle(bundle), to: blog2, mappings: [mapping])
        try expectRefused(store, "step plan") { _ = try step.plan() }
        try expectRefused(store, "step run") { try step.run() }
        try expectRefused(store, "recovery") { try StoreRecovery.recover(at: store) }
    }

    @Test("the store's own log, left by an app still running, is read and its rows migrated")
    func ownLog() throws {
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
        let app = try SQLiteConnection(path: store.path, mode: .readWrite)
        try app.execute("PRAGMA wal_autocheckpoint = 0; UPDATE ZCOMMENT SET ZTEXT = 'from the log'")
        try app.keepLogOnClose()
        app.close()
        let bundle = try ModelBundle(url: Examples.bundle)
        #expect(LogOwnership.verdict(database: store.path, identity: StoreLog.identity) == .belongs)
        let migration = HeavyweightMigration(
            store: store, source: try bundle.model(named: "Blog"), destination: try bundle.model(named: "Blog 2"),
            mapping: try MigrationFixtures.mapping("Blog/Blog-to-Blog2.xml"))
        try migration.run()
        #expect(
            !FileManager.default.fileExists(atPath: store.path + "-wal"), "the log went into the old store, then away")
        let migrated = try SQLiteConnection(path: store.path, mode: .readOnly)
        defer { migrated.close() }
        let texts = try migrated.rows("SELECT DISTINCT ZTEXT FROM ZCOMMENT").compactMap { $0.first?.textValue }
        #expect(texts == ["from the log"])
    }
}
