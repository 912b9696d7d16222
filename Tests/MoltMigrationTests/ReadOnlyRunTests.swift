import Foundation
import MoltCore
import MoltMapping
@_spi(RouteSwitches) import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// Dry runs and plans only read the store: no checkpoint, no log removed, no journal mode
/// changed, nothing of the store written, and the rows that live only in its log are read.
@Suite("Runs that only read")
struct ReadOnlyRunTests {
    let folder = TemporaryDirectory()
    static let v1 = ObjectModel(
        entities: [Entity(name: "Item", attributes: [Attribute(name: "name", type: .string)])], name: "V1")
    static let v2 = ObjectModel(
        entities: [
            Entity(
                name: "Item",
                attributes: [
                    Attribute(name: "name", type: .string), Attribute(name: "note", type: .string, isOptional: true),
                ])
        ], name: "V2")

    /// A V1 store of three items, and a fourth that lives only in its log (an app still running).
    func store() throws -> URL {
        let url = folder.path("Items.sqlite")
        _ = try ObjectStore.create(at: url, model: Self.v1) { writer in
            for name in ["a", "b", "c"] { _ = try writer.insert("Item", attributes: ["name": .string(name)]) }
        }
        let app = try ObjectStore.open(at: url, models: .model(Self.v1), readOnly: false)
        try app.store.connection.execute("PRAGMA wal_autocheckpoint = 0")
        try app.write { writer in _ = try writer.insert("Item", attributes: ["name": .string("in the log")]) }
        try app.store.connection.keepLogOnClose()
        app.store.connection.close()
        return url
    }

    /// The folder's files and their bytes, but the `-shm`: SQLite's shared memory, where every
    /// reader marks what it reads.
    func files(_ url: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.url.path) where !name.hasSuffix("-shm") {
            files[name] = try Data(contentsOf: folder.path(name))
        }
        return files
    }

    @Test(
        "a dry run of a migration into a new file, as SQL on a copy and object by object, reads the log and writes nothing",
        arguments: [true, false])
    func dryRun(sqlCopy: Bool) throws {
        let url = try store()
        guard case .inferred(let mapping) = MappingInference.infer(from: Self.v1, to: Self.v2) else {
            Issue.record("V1 to V2 is inferred")
            return
        }
        var options = MigrationOptions()
        options.dryRun = true
        options.allowsSQLOnCopy = sqlCopy
        let before = try files(url)
        let migration = HeavyweightMigration(
            store: url, source: Self.v1, destination: Self.v2, mapping: mapping, options: options)
        #expect(try migration.plan()?.route == (sqlCopy ? .sqlOnCopy : .objects))
        #expect(try files(url) == before, "the plan wrote nothing")
        let report = try migration.run()
        #expect(report.dryRun)
        #expect(report.destinationCounts["Item"] == 4, "the item in the log is read")
        #expect(try files(url) == before, "the dry run wrote nothing")
    }

    @Test("an in-place dry run rolls back and leaves the log of others' transactions where it was")
    func inPlaceDryRun() throws {
        let url = try store()
        var options = MigrationOptions()
        options.dryRun = true
        let before = try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
        let report = try LightweightMigration(store: url, source: Self.v1, destination: Self.v2, options: options).run()
        #expect(report.inPlace && report.dryRun)
        #expect(report.destinationCounts["Item"] == 4)
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"), "the log is not removed")
        let after = try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
        #expect(after.prefix(before.count) == before, "its committed frames are as they were")
        let check = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { check.close() }
        #expect(try check.scalar("SELECT count(*) FROM ZITEM")?.integerValue == 4)
        #expect(
            try check.scalar("SELECT count(*) FROM pragma_table_info('ZITEM') WHERE name = 'ZNOTE'")?.integerValue == 0)
    }
}
