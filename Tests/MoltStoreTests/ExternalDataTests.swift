import Foundation
import MoltCore
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

@Suite("External binary data: the row's marker, the files, reading and writing")
struct ExternalDataTests {
    let folder = TemporaryDirectory()

    @Test("a value kept in the row is everything after the 0x01 marker")
    func decodesInline() throws {
        #expect(try ExternalBinaryColumn.decode(Data([1, 9, 8, 7])) == .inline(Data([9, 8, 7])))
        #expect(try ExternalBinaryColumn.decode(Data([1])) == .inline(Data()))
    }

    @Test("a reference is 0x02, the file's name and a NUL (accepted without the NUL)")
    func decodesReference() throws {
        let name = "0B5F6A31-7C3E-4E08-9D57-2A7C8E0F4B1D"
        #expect(try ExternalBinaryColumn.decode(Data([2]) + Data(name.utf8) + Data([0])) == .file(name))
        #expect(try ExternalBinaryColumn.decode(Data([2]) + Data(name.utf8)) == .file(name))
        #expect(ExternalBinaryColumn.file(name).encoded == Data([2]) + Data(name.utf8) + Data([0]))
        #expect(ExternalBinaryColumn.inline(Data([5, 6])).encoded == Data([1, 5, 6]))
    }

    static let refused: [(Data, String)] = {
        let bytes: (String) -> Data = { Data($0.utf8) }
        return [
            (Data(), "empty value"),
            (Data([0x03, 1, 2]), "0x3"),
            (Data([0x89, 0x50, 0x4E, 0x47]), "0x89"),
            (Data([2]) + bytes("../../etc/passwd") + Data([0]), "not a plain file name"),
            (Data([2]) + bytes(".hidden"), "not a plain file name"),
            (Data([2, 0]), "not a plain file name"),
            (Data([2]) + bytes("a/b"), "not a plain file name"),
            (Data([2, 0xC3, 0xA9]), "not a plain file name"),
            (Data([2]) + bytes(String(repeating: "A", count: 300)), "not a plain file name"),
        ]
    }()

    @Test("bytes that are neither form are refused with what they hold", arguments: Self.refused)
    func refusesOtherBytes(bytes: Data, expected: String) {
        let error = #expect(throws: MoltError.self) { try ExternalBinaryColumn.decode(bytes) }
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
    }

    @Test("a store in Core Data's layout reads back: values in the row, values in files, no value, other attributes")
    func readsHandMadeStore() throws {
        let (url, external, insert) = try ExternalDataFixtures.handMadeStore(in: folder)
        let large = ExternalDataFixtures.bytes(300_000, seed: 1)
        let small = ExternalDataFixtures.bytes(100, seed: 2)
        let thumbnail = Data([0x01, 0x02, 0x03])  // no marker: the attribute has no external storage
        let name = UUID().uuidString
        try large.write(to: external.appendingPathComponent(name))
        try insert(1, ExternalDataFixtures.inline(small), .blob(thumbnail))
        try insert(2, ExternalDataFixtures.reference(name), .null)
        try insert(3, .null, .null)
        try insert(4, ExternalDataFixtures.reference(name, terminated: false), .null)

        let store = try ObjectStore.open(at: url, models: .model(try ExternalDataFixtures.model()))
        let photos = try store.objects(of: "Photo").all()
        #expect(photos.map { $0.attributes["image"] } == [.data(small), .data(large), nil, .data(large)])
        #expect(photos[0].attributes["thumbnail"] == .data(thumbnail))
        #expect(photos[2].attributes["image"] == nil)
    }

    @Test("a missing file names the object, the attribute and the file")
    func missingFile() throws {
        let (url, _, insert) = try ExternalDataFixtures.handMadeStore(in: folder)
        try insert(7, ExternalDataFixtures.reference("0B5F6A31-7C3E-4E08-9D57-2A7C8E0F4B1D"), .null)
        let store = try ObjectStore.open(at: url, models: .model(try ExternalDataFixtures.model()))
        let error = #expect(throws: MoltError.self) { try store.objects(of: "Photo").all() }
        #expect(error?.code == .fileReadNoSuchFile)
        #expect(error?.entity == "Photo" && error?.property == "image")
        #expect(error?.message.contains("Photo/7") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("0B5F6A31-7C3E-4E08-9D57-2A7C8E0F4B1D is missing") == true)
    }

    @Test("a symbolic link, a folder or a hostile name in the row is never followed")
    func hostileEntries() throws {
        let (url, external, insert) = try ExternalDataFixtures.handMadeStore(in: folder)
        let secret = folder.path("secret")
        try Data("not for the store".utf8).write(to: secret)
        try FileManager.default.createSymbolicLink(
            atPath: external.appendingPathComponent("LINK").path, withDestinationPath: secret.path)
        try FileManager.default.createDirectory(
            at: external.appendingPathComponent("FOLDER"), withIntermediateDirectories: false)
        let model = try ExternalDataFixtures.model()
        for (key, value, expected) in [
            (Int64(1), ExternalDataFixtures.reference("LINK"), "cannot open the external-data file LINK"),
            (2, ExternalDataFixtures.reference("FOLDER"), "FOLDER is not a regular file"),
            (3, ExternalDataFixtures.reference("../secret"), "not a plain file name"),
        ] {
            try insert(key, value, .null)
            let store = try ObjectStore.open(at: url, models: .model(model))
            let error = #expect(throws: MoltError.self) { try store.objects(of: "Photo").all() }
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
            #expect(error?.property == "image")
            let connection = try SQLiteConnection(path: url.path, mode: .readWrite)
            try connection.execute("DELETE FROM ZPHOTO")
            connection.close()
        }
    }

    @Test("writing keeps short values in the row and long ones in new files, each durable and read back")
    func writes() throws {
        let url = folder.path("Written.sqlite")
        let large = ExternalDataFixtures.bytes(ExternalDataFolder.fileThreshold, seed: 3)
        let small = ExternalDataFixtures.bytes(ExternalDataFolder.fileThreshold - 1, seed: 4)
        let store = try ObjectStore.create(at: url, model: try ExternalDataFixtures.model()) { writer in
            try writer.insert("Photo", attributes: ["image": .data(large), "thumbnail": .data(large)])
            try writer.insert("Photo", attributes: ["image": .data(small)])
        }
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
        let rows = try connection.rows("SELECT ZIMAGE, ZTHUMBNAIL FROM ZPHOTO ORDER BY Z_PK").map { ($0[0], $0[1]) }
        guard case .blob(let first) = rows[0].0, case .file(let name) = try ExternalBinaryColumn.decode(first) else {
            Issue.record("the long value is not a reference: \(rows[0].0)")
            return
        }
        #expect(UUID(uuidString: name) != nil)
        #expect(try Data(contentsOf: store.externalData.url.appendingPathComponent(name)) == large)
        #expect(rows[0].1 == .blob(large), "an attribute without external storage keeps its bytes as they are")
        #expect(rows[1].0 == ExternalDataFixtures.inline(small))
        #expect(try store.objects(of: "Photo").all().map { $0.attributes["image"] } == [.data(large), .data(small)])
    }

    @Test("a write that fails takes back the files it made")
    func failedWrite() throws {
        let url = folder.path("Failing.sqlite")
        let store = try ObjectStore.create(at: url, model: try ExternalDataFixtures.model())
        #expect(throws: MoltError.self) {
            try store.write { writer in
                try writer.insert("Photo", attributes: ["image": .data(ExternalDataFixtures.bytes(200_000, seed: 5))])
                try writer.insert("Photo", attributes: ["caption": .integer(3)])  // wrong type: fails
            }
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: store.externalData.url.path)) ?? []
        #expect(files.isEmpty, "left behind: \(files)")
        #expect(try store.count(of: "Photo") == 0)
    }

    @Test("a value read from a file and written unchanged to another store is linked, not copied")
    func linksUnchangedValues() throws {
        let (url, external, insert) = try ExternalDataFixtures.handMadeStore(in: folder, name: "Source.sqlite")
        let large = ExternalDataFixtures.bytes(250_000, seed: 6)
        let name = UUID().uuidString
        try large.write(to: external.appendingPathComponent(name))
        try insert(1, ExternalDataFixtures.reference(name), .null)
        let model = try ExternalDataFixtures.model()
        let source = try ObjectStore.open(at: url, models: .model(model))
        let photo = try #require(try source.objects(of: "Photo").all().first)
        var changed = large
        changed[0] ^= 0xFF
        let copy = try ObjectStore.create(at: folder.path("Copy.sqlite"), model: model) { writer in
            try writer.insert("Photo", attributes: photo.attributes)
            try writer.insert("Photo", attributes: photo.attributes)
            try writer.insert("Photo", attributes: ["image": .data(changed)])
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: copy.externalData.url.path)
        #expect(names.count == 3)
        #expect(names.contains(name), "the first use keeps the file's name")
        let original = try ExternalDataFixtures.inode(external.appendingPathComponent(name).path)
        let linked = try names.filter { try ExternalDataFixtures.inode(copy.externalData.path(of: $0)) == original }
        #expect(linked.count == 2, "both unchanged values are links to the source's file, under two names")
        #expect(
            try copy.objects(of: "Photo").all().map { $0.attributes["image"] } == [
                .data(large), .data(large), .data(changed),
            ])
    }

    @Test("an update retires the file it replaces once committed; a value shared by copying keeps its own file")
    func updates() throws {
        let url = folder.path("Updated.sqlite")
        let first = ExternalDataFixtures.bytes(150_000, seed: 7)
        let second = ExternalDataFixtures.bytes(160_000, seed: 8)
        var ids: [ObjectID] = []
        let store = try ObjectStore.create(at: url, model: try ExternalDataFixtures.model()) { writer in
            ids.append(try writer.insert("Photo", attributes: ["image": .data(first)]))
            ids.append(try writer.insert("Photo", attributes: ["caption": .string("empty")]))
        }
        func files() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: store.externalData.url.path).sorted()
        }
        let original = try files()
        #expect(original.count == 1)
        // Photo 2 gets photo 1's image as read (a link under a name of its own).
        let read = try #require(try store.object(ids[0])?.attributes["image"])
        try store.write { writer in try writer.update(ids[1], attributes: ["image": read]) }
        #expect(try files().count == 2)
        // A failed update keeps the file the row still refers to.
        #expect(throws: MoltError.self) {
            try store.write { writer in
                try writer.update(ids[0], attributes: ["image": .data(second)])
                try writer.update(ids[0], attributes: ["caption": .integer(1)])
            }
        }
        #expect(try files().count == 2)
        try store.write { writer in try writer.update(ids[0], attributes: ["image": .data(second)]) }
        let after = try files()
        #expect(after.count == 2 && !after.contains(original[0]), "the replaced file is gone: \(after)")
        #expect(try store.object(ids[0])?.attributes["image"] == .data(second))
        #expect(try store.object(ids[1])?.attributes["image"] == .data(first))
        try store.write { writer in try writer.update(ids[1], attributes: ["image": nil]) }
        #expect(try files().count == 1)
    }

    @Test("a value whose file went away after it was read is written from its own bytes")
    func originGone() throws {
        let (url, external, insert) = try ExternalDataFixtures.handMadeStore(in: folder, name: "Gone.sqlite")
        let large = ExternalDataFixtures.bytes(140_000, seed: 9)
        let name = UUID().uuidString
        try large.write(to: external.appendingPathComponent(name))
        try insert(1, ExternalDataFixtures.reference(name), .null)
        let model = try ExternalDataFixtures.model()
        let photo = try #require(try ObjectStore.open(at: url, models: .model(model)).objects(of: "Photo").all().first)
        try FileManager.default.removeItem(at: external.appendingPathComponent(name))
        let copy = try ObjectStore.create(at: folder.path("Kept.sqlite"), model: model) { writer in
            try writer.insert("Photo", attributes: photo.attributes)
        }
        #expect(try copy.objects(of: "Photo").all().first?.attributes["image"] == .data(large))
        #expect(try FileManager.default.contentsOfDirectory(atPath: copy.externalData.url.path).count == 1)
    }
}
