import Foundation
import MoltCore
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// Damaged stores: a valid store of the example model `Blog` is made from `Blog.json`, then a
/// copy is damaged in one way per case (never a committed binary) and opened and read as
/// `molt dump` does. Each case gives its exact error, and the damaged file's bytes are the same
/// before and after.
@Suite("Damaged stores")
struct StoreDamageTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let code: MoltError.Code
        let message: String
        let damage: @Sendable (URL) throws -> Void
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "zero bytes", code: .persistentStoreInvalidType, message: "the file is empty, not a store") {
            try Data().write(to: $0)
        },
        Case(
            name: "truncated inside the header", code: .persistentStoreInvalidType,
            message: "does not start with SQLite's header"
        ) {
            try Data(try Data(contentsOf: $0).prefix(10)).write(to: $0)
        },
        Case(name: "truncated after the first page", code: .sqlite, message: "the store is damaged") {
            try Data(try Data(contentsOf: $0).prefix(4096)).write(to: $0)
        },
        Case(name: "truncated in the middle", code: .sqlite, message: "the store is damaged") {
            let data = try Data(contentsOf: $0)
            try Data(data.prefix(data.count / 2 + 100)).write(to: $0)
        },
        Case(name: "wrong magic", code: .persistentStoreInvalidType, message: "does not start with SQLite's header") {
            var data = try Data(contentsOf: $0)
            data.replaceSubrange(0..<16, with: Data("SQLite format 4\0".utf8))
            try data.write(to: $0)
        },
        Case(name: "random bytes", code: .persistentStoreInvalidType, message: "does not start with SQLite's header") {
            var generator = SeededGenerator(state: 2026)
            try Data((0..<65_536).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: $0)
        },
        Case(
            name: "random pages after a valid header", code: .sqlite,
            message: "the store is damaged"
        ) {
            var data = try Data(contentsOf: $0)
            var generator = SeededGenerator(state: 2026)
            for index in 100..<data.count { data[index] = UInt8.random(in: 0...255, using: &generator) }
            try data.write(to: $0)
        },
        Case(
            name: "an SQLite file without Z_METADATA", code: .persistentStoreInvalidType,
            message: "it has no Z_METADATA table"
        ) {
            try execute("DROP TABLE Z_METADATA", on: $0)
        },
        Case(
            name: "an SQLite file without Z_PRIMARYKEY", code: .persistentStoreInvalidType,
            message: "it has no Z_PRIMARYKEY table"
        ) {
            try execute("DROP TABLE Z_PRIMARYKEY", on: $0)
        },
        Case(
            name: "an empty Z_METADATA", code: .persistentStoreInvalidType,
            message: "the store's Z_METADATA table is empty"
        ) {
            try execute("DELETE FROM Z_METADATA", on: $0)
        },
        Case(
            name: "Z_METADATA with a garbage property list", code: .propertyListReadCorrupt,
            message: "Z_METADATA.Z_PLIST is not a valid binary property list"
        ) {
            try execute("UPDATE Z_METADATA SET Z_PLIST = X'62706C6973743030DEADBEEF'", on: $0)
        },
        Case(
            name: "Z_METADATA with text instead of a property list", code: .persistentStoreInvalidType,
            message: "Z_PLIST is not a binary property list"
        ) {
            try execute("UPDATE Z_METADATA SET Z_PLIST = 'hello'", on: $0)
        },
        Case(
            name: "Z_METADATA holding an array", code: .persistentStoreInvalidType,
            message: "not a dictionary"
        ) {
            let plist = BinaryPropertyListWriter().write(.array([.string("x")]))
            try execute(
                "UPDATE Z_METADATA SET Z_PLIST = X'\(plist.map { String(format: "%02X", $0) }.joined())'", on: $0)
        },
        Case(name: "wrong version hashes", code: .incompatibleVersionHash, message: "Author") {
            let store = try SQLiteStore(at: $0, readOnly: false)
            var metadata = store.metadata
            metadata.entityVersionHashes["Author"] = Data(repeating: 7, count: 32)
            try store.writeMetadata(metadata)
        },
        Case(name: "a missing entity table", code: .sqlite, message: "ZTAG") {
            try execute("DROP TABLE ZTAG", on: $0)
        },
        Case(name: "a missing column", code: .sqlite, message: "ZEMAIL") {
            try execute("ALTER TABLE ZAUTHOR DROP COLUMN ZEMAIL", on: $0)
        },
    ]

    /// Runs `sql` on the store at `url` (for damaging a copy).
    static func execute(_ sql: String, on url: URL) throws {
        let connection = try SQLiteConnection(path: url.path, mode: .readWrite)
        try connection.execute(sql)
    }

    /// A valid store of `Blog`, seeded with the example objects.
    static func makeStore(in folder: TemporaryDirectory) throws -> URL {
        let url = folder.path("Blog.sqlite")
        let seed = try Data(contentsOf: Fixtures.package("MappingModels/Examples/Blog.json"))
        var options = StoreCreationOptions()
        options.usesWriteAheadLog = false
        _ = try ObjectStore.create(at: url, model: try Examples.model("Blog"), options: options) { writer in
            try ObjectsJSONImporter().importObjects(from: seed, file: "Blog.json", into: writer)
        }
        return url
    }

    /// Opens the store and reads every object of every entity, as `molt dump` does.
    static func readEverything(_ url: URL) throws {
        let store = try ObjectStore.open(at: url, models: .model(try Examples.model("Blog")))
        for entity in store.layout.entities where !entity.isAbstract {
            let cursor = try store.objects(of: entity.name, includingSubentities: false)
            while try cursor.nextBatch() != nil {}
        }
    }

    @Test("the undamaged store reads")
    func undamaged() throws {
        let folder = TemporaryDirectory("molt-hostile-store")
        try Self.readEverything(try Self.makeStore(in: folder))
    }

    @Test("each damaged store gives its exact error and is not changed", arguments: cases)
    func damaged(_ damage: Case) throws {
        let folder = TemporaryDirectory("molt-hostile-store")
        let url = try Self.makeStore(in: folder)
        try damage.damage(url)
        let before = try Data(contentsOf: url)
        let error = #expect(throws: MoltError.self) { try Self.readEverything(url) }
        #expect(error?.code == damage.code, "\(error.map { "\($0.detailedDescription)" } ?? "")")
        #expect(error?.message.contains(damage.message) == true, "\(error.map { "\($0)" } ?? "")")
        #expect(error?.location?.file == url.path, "the error names the store")
        #expect(try Data(contentsOf: url) == before, "the damaged store is unchanged")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["Blog.sqlite"],
            "no companion file is left")
    }

    @Test("a store path that does not exist, and a folder, are refused")
    func notAFile() throws {
        let folder = TemporaryDirectory("molt-hostile-store")
        let missing = #expect(throws: MoltError.self) { try Self.readEverything(folder.path("none.sqlite")) }
        #expect(missing?.code == .fileReadNoSuchFile)
        let directory = #expect(throws: MoltError.self) { try Self.readEverything(folder.url) }
        #expect(
            directory?.code == .fileReadUnknown || directory?.code == .persistentStoreInvalidType,
            "\(directory.map { "\($0)" } ?? "")")
    }
}
