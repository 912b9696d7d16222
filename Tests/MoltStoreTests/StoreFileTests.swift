import Foundation
import MoltCore
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

@Suite("Creating and opening store files")
struct StoreFileTests {
    @Test("a new store has Core Data's settings, bookkeeping rows and metadata, and no leftover files")
    func creation() throws {
        let folder = TemporaryDirectory()
        let model = try TestStores.blogModel()
        var options = StoreCreationOptions()
        options.additionalMetadata = ["AppKey": .string("kept")]
        options.includesHashesDigest = true
        _ = try ObjectStore.create(at: folder.path("blog.sqlite"), model: model, options: options)
        #expect(try TestStores.files(in: folder) == ["blog.sqlite"])

        let store = try SQLiteStore(at: folder.path("blog.sqlite"))
        #expect(try store.journalMode() == "wal")
        let facts = try store.fileFacts()
        #expect(facts.pageSize == 4096 && facts.autoVacuum == 2)
        let metadata = store.metadata
        #expect(metadata.storeType == "SQLite")
        #expect(metadata.entityVersionHashes == (try model.entityVersionHashes()))
        #expect(metadata.versionHashesVersion == 3)
        #expect(metadata.versionIdentifiers == ["Blog 1"])
        #expect(metadata.frameworkVersion == 637)
        #expect(metadata.autoVacuumLevel == "2")
        #expect(metadata.versionHashesDigest == (try model.versionHashesDigest()))
        #expect(
            metadata.additionalEntries == [
                "AppKey": .string("kept"), StoreMetadata.modelChecksumKey: .string(try model.versionChecksum()),
            ])
        #expect(UUID(uuidString: metadata.storeUUID) != nil)
        #expect(store.entityRecords.map(\.name) == ["Author", "Comment", "Post", "Article", "Video", "Tag"])
        #expect(store.entityRecords.map(\.superNumber) == [0, 0, 0, 3, 3, 0])
        #expect(try !store.hasModelCache())
        store.connection.close()
        #expect(try TestStores.files(in: folder) == ["blog.sqlite"], "a read-only look leaves nothing behind")
    }

    @Test("a creation cancelled (checkCancelled throws) leaves no store and no temporary file")
    func cancelledCreation() throws {
        let folder = TemporaryDirectory()
        var options = StoreCreationOptions()
        options.checkCancelled = { throw MoltError(.migrationCancelled, "stopped") }
        let error = #expect(throws: MoltError.self) {
            _ = try ObjectStore.create(
                at: folder.path("blog.sqlite"), model: try TestStores.blogModel(), options: options)
        }
        #expect(error?.code == .migrationCancelled)
        #expect(try TestStores.files(in: folder) == [])
    }

    @Test("a creation's leftovers are told by the store's exact name and a UUID")
    func leftoverNames() {
        let uuid = UUID().uuidString
        #expect(CreationLeftovers.temporaryFile(".A.sqlite.molt-\(uuid).creating", of: "A.sqlite") != nil)
        #expect(
            CreationLeftovers.temporaryFile(".A.sqlite.molt-\(uuid).creating-wal", of: "A.sqlite")
                == ".A.sqlite.molt-\(uuid).creating")
        #expect(CreationLeftovers.temporaryFile(".A.sqlite.molt-\(uuid).creating", of: "B.sqlite") == nil)
        #expect(CreationLeftovers.temporaryFile(".AA.sqlite.molt-\(uuid).creating", of: "A.sqlite") == nil)
        #expect(CreationLeftovers.temporaryFile(".A.sqlite.molt-\(uuid.lowercased()).creating", of: "A.sqlite") == nil)
        #expect(CreationLeftovers.temporaryFile(".A.sqlite.molt-\(uuid).creating-other", of: "A.sqlite") == nil)
        #expect(CreationLeftovers.temporaryFile("A.sqlite", of: "A.sqlite") == nil)
    }

    @Test("creating over an existing file fails and leaves it untouched")
    func noOverwrite() throws {
        let folder = TemporaryDirectory()
        let existing = try folder.write("precious", to: "blog.sqlite")
        let error = #expect(throws: MoltError.self) {
            try TestStores.create(try TestStores.blogModel(), in: folder, name: "blog.sqlite")
        }
        #expect(error?.code == .fileWriteFileExists)
        #expect(try String(contentsOf: existing, encoding: .utf8) == "precious")
        #expect(try TestStores.files(in: folder) == ["blog.sqlite"])
    }

    @Test("when filling a new store fails, nothing is left at the path or beside it")
    func failedPopulate() throws {
        struct Boom: Error {}
        let folder = TemporaryDirectory()
        #expect(throws: Boom.self) {
            try TestStores.create(try TestStores.blogModel(), in: folder) { writer in
                try writer.insert("Tag", attributes: ["name": .string("x")])
                throw Boom()
            }
        }
        #expect(try TestStores.files(in: folder).isEmpty)
    }

    @Test("metadata written back keeps unknown keys")
    func metadataRoundTrip() throws {
        let folder = TemporaryDirectory()
        let created = try TestStores.create(try TestStores.blogModel(), in: folder)
        var metadata = created.store.metadata
        metadata.additionalEntries["com.example.flag"] = .bool(true)
        try created.store.writeMetadata(metadata)
        let reopened = try SQLiteStore(at: created.store.url)
        #expect(reopened.metadata == metadata)
    }

    @Test("a store matches its own model; another model is reported entity by entity")
    func compatibility() throws {
        let folder = TemporaryDirectory()
        let model = try TestStores.model(
            """
            <entity name="Author"><attribute name="name" attributeType="String"/></entity>
            <entity name="Book"><attribute name="title" attributeType="String"/></entity>
            <entity name="Shelf"><attribute name="label" attributeType="String"/></entity>
            """)
        let other = try TestStores.model(
            """
            <entity name="Author"><attribute name="name" attributeType="String"/></entity>
            <entity name="Book"><attribute name="title" optional="YES" attributeType="String"/></entity>
            <entity name="Publisher"><attribute name="name" attributeType="String"/></entity>
            """, name: "Other")
        let store = try TestStores.create(model, in: folder).store
        #expect(try store.compatibility(with: model) == .compatible)
        let result = try store.compatibility(with: other)
        #expect(result == .incompatible(differing: ["Book"], missingFromStore: ["Publisher"], onlyInStore: ["Shelf"]))
        #expect(
            result.description
                == "incompatible: entity Book differs; Publisher missing from the store; Shelf only in the store")
        let error = #expect(throws: MoltError.self) { try ObjectStore(store: store, model: other) }
        #expect(error?.code == .incompatibleVersionHash)
        #expect(error?.message.contains("Book differs") == true)
    }

    @Test("given a bundle, the version the store was made with is found")
    func bundleMatching() throws {
        let folder = TemporaryDirectory()
        let v1 = "<entity name=\"Note\"><attribute name=\"text\" attributeType=\"String\"/></entity>"
        let v2 =
            "<entity name=\"Note\"><attribute name=\"text\" attributeType=\"String\"/><attribute name=\"pinned\" attributeType=\"Boolean\"/></entity>"
        let bundle = try ModelBundle(
            url: try ModelXML.writeBundle(
                "Notes", versions: [("Notes", v1), ("Notes 2", v2)], current: "Notes 2", in: folder))
        _ = try TestStores.create(try bundle.model(named: "Notes"), in: folder, name: "notes.sqlite")
        let opened = try ObjectStore.open(at: folder.path("notes.sqlite"), models: .bundle(bundle))
        #expect(opened.model.name == "Notes")

        let v3 = "<entity name=\"Other\"><attribute name=\"x\" attributeType=\"String\"/></entity>"
        let unrelated = try ModelBundle(
            url: try ModelXML.writeBundle("Unrelated", versions: [("U", v3), ("U 2", v2)], current: "U", in: folder))
        let error = #expect(throws: MoltError.self) {
            try ObjectStore.open(at: folder.path("notes.sqlite"), models: .bundle(unrelated))
        }
        #expect(error?.code == .missingSourceModel)
        #expect(error?.message.contains("closest is \"U 2\"") == true)
        #expect(error?.details.count == 2)
    }

    @Test(
        "files that are not Core Data stores are refused with a clear error",
        arguments: [
            ("text", Data("just some text, not a database at all, long enough to read".utf8), "not an SQLite database"),
            ("empty", Data(), "empty"),
            (
                "fake header", Data("SQLite format 3\0".utf8) + Data(repeating: 0xAB, count: 5000),
                "not an SQLite database"
            ),
        ])
    func notStores(name: String, content: Data, message: String) throws {
        let folder = TemporaryDirectory()
        let file = folder.path("\(name).sqlite")
        try content.write(to: file)
        let error = #expect(throws: MoltError.self) { try SQLiteStore(at: file) }
        #expect(error?.code == .persistentStoreInvalidType)
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        #expect(error?.location?.file == file.path)
        #expect(try Data(contentsOf: file) == content, "the file is never changed")
    }

    @Test("an SQLite database without Core Data's tables is refused")
    func plainSQLite() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("plain.sqlite").path
        try SQLiteConnection(path: path, mode: .create).execute("CREATE TABLE things (x)")
        let error = #expect(throws: MoltError.self) { try SQLiteStore(at: URL(fileURLWithPath: path)) }
        #expect(error?.message.contains("no Z_METADATA table") == true)
    }

    @Test("damaged metadata is refused with what is wrong")
    func damagedMetadata() throws {
        let folder = TemporaryDirectory()
        let created = try TestStores.create(try TestStores.blogModel(), in: folder)
        try created.store.connection.run("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(Data("garbage".utf8))])
        let error = #expect(throws: MoltError.self) { try SQLiteStore(at: created.store.url) }
        #expect(error?.code == .propertyListReadCorrupt)
        #expect(error?.location?.file == created.store.url.path)
        let plist = BinaryPropertyListWriter().write(.dictionary(["NSStoreType": .string("SQLite")]))
        try created.store.connection.run("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(plist)])
        let missing = #expect(throws: MoltError.self) { try SQLiteStore(at: created.store.url) }
        #expect(missing?.message.contains("NSStoreModelVersionHashes is missing") == true)
    }

    @Test("a truncated store fails clearly when read")
    func truncated() throws {
        let folder = TemporaryDirectory()
        let created = try TestStores.create(try TestStores.blogModel(), in: folder) { writer in
            for index in 0..<2000 { try writer.insert("Tag", attributes: ["name": .string("tag \(index)")]) }
        }
        let url = created.store.url
        let data = try Data(contentsOf: url)
        try data.prefix(data.count / 2).write(to: url)
        #expect(throws: MoltError.self) {
            let store = try ObjectStore.open(at: url, models: .model(try TestStores.blogModel()))
            _ = try store.objects(of: "Tag").all()
        }
    }

    @Test("rows that live only in the -wal file are read")
    func walOnlyRows() throws {
        let folder = TemporaryDirectory()
        let model = try TestStores.blogModel()
        let writer = try TestStores.create(model, in: folder, name: "live.sqlite")
        try writer.store.connection.execute("PRAGMA wal_autocheckpoint = 0")
        try writer.write { w in
            for index in 0..<50 { try w.insert("Tag", attributes: ["name": .string("t\(index)")]) }
        }
        // Copy the three files while the writer still holds them, as a crash would leave them.
        let copy = TemporaryDirectory()
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(
                atPath: writer.store.url.path + suffix, toPath: copy.path("live.sqlite").path + suffix)
        }
        let mainOnly = try SQLiteConnection(path: copy.path("live.sqlite").path, mode: .immutable)
        #expect(try mainOnly.scalar("SELECT count(*) FROM ZTAG") == .integer(0), "the rows are not in the main file")
        let reader = try ObjectStore.open(at: copy.path("live.sqlite"), models: .model(model))
        #expect(try reader.count(of: "Tag") == 50)
        #expect(try reader.objects(of: "Tag").all().count == 50)
        let counts = try reader.store.objectCounts()
        #expect(counts.first { $0.entity == "Tag" }?.count == 50)
    }
}
