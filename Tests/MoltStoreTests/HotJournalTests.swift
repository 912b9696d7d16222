import Foundation
import MoltCore
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// A store in rollback-journal mode whose writer died mid-transaction after SQLite had already
/// written changed pages into the main file: the `-journal` beside it holds the old pages
/// ("hot"), and only a read-write connection may roll it back.
@Suite("Stores left with a rollback journal by a crash")
struct HotJournalTests {
    let folder = TemporaryDirectory()

    /// A store of 2,000 tags in DELETE journal mode, and a copy of its files taken while a
    /// transaction renaming every tag had spilled into the main file: what a crash leaves.
    func crashedStore(named name: String) throws -> URL {
        let original = TemporaryDirectory()
        let url = original.path("store.sqlite")
        _ = try ObjectStore.create(at: url, model: try TestStores.blogModel()) { writer in
            for index in 0..<2000 {
                try writer.insert(
                    "Tag", attributes: ["name": .string("tag \(index) " + String(repeating: "x", count: 60))])
            }
        }
        let writer = try SQLiteConnection(path: url.path, mode: .readWrite)
        defer { writer.close() }
        try writer.execute("PRAGMA journal_mode = DELETE")
        try writer.execute("PRAGMA cache_size = 2")  // pages: the update spills into the main file
        try writer.execute("BEGIN")
        try writer.execute("UPDATE ZTAG SET ZNAME = 'renamed' || ZNAME")
        let copy = folder.path(name)
        for suffix in ["", "-journal"] {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
        }
        try writer.execute("ROLLBACK")
        return copy
    }

    @Test("the crash left a journal that a read-only SQLite connection cannot get past")
    func journalIsHot() throws {
        let url = try crashedStore(named: "hot.sqlite")
        #expect(FileManager.default.fileExists(atPath: url.path + "-journal"))
        #expect(throws: SQLiteError.self) {
            let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
            defer { connection.close() }
            _ = try connection.scalar("SELECT count(*) FROM ZTAG")
        }
    }

    @Test("opening such a store read-only rolls the journal back and reads the data as it was")
    func readOnlyOpenRollsBack() throws {
        let url = try crashedStore(named: "store.sqlite")
        let store = try ObjectStore.open(at: url, models: .model(try TestStores.blogModel()))
        let names = try store.objects(of: "Tag").all().compactMap { object -> String? in
            if case .string(let name)? = object.attributes["name"] { return name }
            return nil
        }
        #expect(names.count == 2000)
        #expect(names.allSatisfy { $0.hasPrefix("tag ") })
        #expect(!FileManager.default.fileExists(atPath: url.path + "-journal"))
    }

    @Test("rollBackInterruptedWrite leaves a store without a journal untouched")
    func nothingToRollBack() throws {
        let url = folder.path("plain.sqlite")
        _ = try ObjectStore.create(at: url, model: try TestStores.blogModel())
        let before = try Data(contentsOf: url)
        SQLiteStore.rollBackInterruptedWrite(at: url)
        #expect(try Data(contentsOf: url) == before)
        #expect(try TestStores.files(in: folder) == ["plain.sqlite"])
    }
}
