import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// Replaces every image by its bytes reversed: a changed value, which must get a file of its own.
final class ReversingImageTestPolicy: EntityMigrationPolicy {
    override class var policyName: String { "ReversingImageTestPolicy" }
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let photo = try manager.createDefaultDestinationInstance(for: source)
        if case .data(let image)? = try source.stored.attributes["image"] {
            try manager.setAttributes(
                ["image": ExpressionValue(AttributeValue.data(Data(image.reversed())))], of: photo)
        }
    }
}

/// Fails at the third photo, after files were written for the first ones.
final class FailingImageTestPolicy: RefusingPolicy {
    override class var policyName: String { "FailingImageTestPolicy" }
    override class var refusedObject: Int { 3 }
    override class var refusal: String { "this policy refuses the third photo" }

    override func makeDestination(for source: SourceObject, mapping: EntityMapping, manager: MigrationManager) throws {
        let photo = try manager.createDefaultDestinationInstance(for: source)
        if case .data(let image)? = try source.stored.attributes["image"] {
            try manager.setAttributes(["image": ExpressionValue(AttributeValue.data(image + Data([1])))], of: photo)
        }
    }
}

/// Values of attributes with external storage survive heavyweight and lightweight migrations,
/// and the new store's support folder is swapped in with it, crash or no crash.
@Suite("External binary data through migrations and the swap")
struct ExternalDataMigrationTests {
    let folder = TemporaryDirectory()
    let large1 = ExternalDataFixtures.bytes(300_000, seed: 11)
    let large2 = ExternalDataFixtures.bytes(200_000, seed: 12)
    let small = ExternalDataFixtures.bytes(500, seed: 13)
    let name1 = "0B5F6A31-7C3E-4E08-9D57-2A7C8E0F4B1D"
    let name2 = "9E2C44F0-1A6B-4C1D-8E3F-5B7A9C0D2E4F"
    let orphan = "11111111-2222-3333-4444-555555555555"

    init() {
        CompiledPolicies.register([ReversingImageTestPolicy.self, FailingImageTestPolicy.self])
    }

    /// Version 2 adds a rating; version 3 is version 1 with external storage moved from the
    /// image to the thumbnail.
    static func model(_ version: Int) throws -> ObjectModel {
        var entities = ExternalDataFixtures.entities
        if version == 2 {
            entities = entities.replacingOccurrences(
                of: "<attribute name=\"thumbnail\"",
                with:
                    "<attribute name=\"rating\" optional=\"YES\" attributeType=\"Integer 16\"/>\n<attribute name=\"thumbnail\""
            )
        }
        if version == 3 { entities = ExternalDataFixtures.swappedStorageEntities }
        return try XcodeModelReader().read(
            Data(ModelXML.document(entities).utf8), file: "Photos \(version)/contents", name: "Photos \(version)")
    }

    static func mapping(to version: Int, filter: String? = nil, policy: String? = nil) throws -> MappingModel {
        let policyAttribute = policy.map { " policy=\"\($0)\"" } ?? ""
        let filterElement = filter.map { "<filter>\($0)</filter>" } ?? ""
        return try MigrationFixtures.mapping(
            text: """
                <mapping-model format="1" source-model="Photos 1" destination-model="Photos \(version)">
                    <entity-mapping name="PhotoToPhoto" type="\(policy == nil ? "transform" : "custom")" source="Photo" destination="Photo"\(policyAttribute)>\(filterElement)</entity-mapping>
                </mapping-model>
                """)
    }

    /// Photos 1 to 4: a short image in the row, two long ones in files, none; an orphan file in
    /// `_EXTERNAL_DATA` and a note of the app's own in the support folder.
    func sourceStore() throws -> URL {
        let (url, external, insert) = try ExternalDataFixtures.handMadeStore(in: folder)
        try large1.write(to: external.appendingPathComponent(name1))
        try large2.write(to: external.appendingPathComponent(name2))
        try Data("nobody refers to me".utf8).write(to: external.appendingPathComponent(orphan))
        try Data("the app's own".utf8).write(to: external.deletingLastPathComponent().appendingPathComponent("notes"))
        try insert(1, ExternalDataFixtures.inline(small), .blob(Data([7, 7])))
        try insert(2, ExternalDataFixtures.reference(name1), .null)
        try insert(3, ExternalDataFixtures.reference(name2), .null)
        try insert(4, .null, .blob(large2))
        return url
    }

    func images(_ url: URL, version: Int) throws -> [AttributeValue?] {
        try ObjectStore(store: SQLiteStore(at: url), model: Self.model(version)).objects(of: "Photo").all().map {
            $0.attributes["image"]
        }
    }

    func storedColumn(_ url: URL, _ column: String) throws -> [SQLiteValue] {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { connection.close() }
        return try connection.rows("SELECT \(column) FROM ZPHOTO ORDER BY Z_PK").map { $0[0] }
    }

    @Test("a heavyweight migration carries every value; the new store keeps the old files, leftovers none")
    func heavyweight() throws {
        let url = try sourceStore()
        var options = MigrationOptions()
        options.backup = true
        let report = try HeavyweightMigration(
            store: url, source: try Self.model(1), destination: try Self.model(2), mapping: try Self.mapping(to: 2),
            options: options
        ).run()
        #expect(try images(url, version: 2) == [.data(small), .data(large1), .data(large2), nil])
        #expect(
            ExternalDataFixtures.files(of: url) == [name1, name2, orphan].sorted(),
            "files no store uses are not Molt's to remove")
        #expect(report.externalFiles == 2)
        let support = CompanionFiles.supportFolder(of: url)
        #expect(try String(contentsOf: support.appendingPathComponent("notes"), encoding: .utf8) == "the app's own")
        let backup = try #require(report.backup)
        let backupExternal = CompanionFiles.supportFolder(of: URL(fileURLWithPath: backup))
            .appendingPathComponent("_EXTERNAL_DATA")
        #expect(
            try ExternalDataFixtures.inode(support.appendingPathComponent("_EXTERNAL_DATA/\(name1)").path)
                == ExternalDataFixtures.inode(backupExternal.appendingPathComponent(name1).path),
            "the backup's file is a link, not a copy")
        #expect(FileManager.default.fileExists(atPath: backupExternal.appendingPathComponent(orphan).path))
        #expect(
            try images(URL(fileURLWithPath: backup), version: 1) == [.data(small), .data(large1), .data(large2), nil])
        let leftovers = try MigrationFixtures.files(folder).filter { $0.contains("molt-") && !$0.contains("backup") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("the files of objects a filter drops go after the swap; a changed value gets a new file")
    func droppedAndChanged() throws {
        let url = try sourceStore()
        try HeavyweightMigration(
            store: url, source: try Self.model(1), destination: try Self.model(2),
            mapping: try Self.mapping(to: 2, filter: "caption != \"photo 3\"")
        ).run()
        #expect(ExternalDataFixtures.files(of: url) == [name1, orphan].sorted())
        #expect(try images(url, version: 2) == [.data(small), .data(large1), nil])

        let other = TemporaryDirectory()
        let (second, external, insert) = try ExternalDataFixtures.handMadeStore(in: other)
        try large1.write(to: external.appendingPathComponent(name1))
        try insert(1, ExternalDataFixtures.reference(name1), .null)
        try insert(2, ExternalDataFixtures.inline(small), .null)
        try HeavyweightMigration(
            store: second, source: try Self.model(1), destination: try Self.model(2),
            mapping: try Self.mapping(to: 2, policy: "ReversingImageTestPolicy")
        ).run()
        #expect(
            try images(second, version: 2) == [.data(Data(large1.reversed())), .data(Data(small.reversed()))])
        let files = ExternalDataFixtures.files(of: second)
        #expect(files.count == 1 && files != [name1], "the reversed image is a new file: \(files)")
    }

    @Test("turning external storage off brings values into the row; turning it on marks or files them")
    func changedStorage() throws {
        let url = try sourceStore()
        let report = try HeavyweightMigration(
            store: url, source: try Self.model(1), destination: try Self.model(3), mapping: try Self.mapping(to: 3)
        ).run()
        #expect(try storedColumn(url, "ZIMAGE") == [.blob(small), .blob(large1), .blob(large2), .null])
        let thumbnails = try storedColumn(url, "ZTHUMBNAIL")
        #expect(thumbnails[0] == ExternalDataFixtures.inline(Data([7, 7])))
        guard case .blob(let bytes) = thumbnails[3], case .file(let name) = try ExternalBinaryColumn.decode(bytes)
        else {
            Issue.record("the long thumbnail is not in a file: \(thumbnails[3])")
            return
        }
        #expect(ExternalDataFixtures.files(of: url) == [name, orphan].sorted())
        #expect(report.externalFiles == 1)
        let photos = try ObjectStore(store: SQLiteStore(at: url), model: Self.model(3)).objects(of: "Photo").all()
        #expect(photos[3].attributes["thumbnail"] == .data(large2))
    }

    @Test("a failed migration and a dry run leave the store, its files and nothing else")
    func failureAndDryRun() throws {
        let url = try sourceStore()
        let before = try MigrationFixtures.files(folder)
        let filesBefore = ExternalDataFixtures.files(of: url)
        let error = #expect(throws: MoltError.self) {
            try HeavyweightMigration(
                store: url, source: try Self.model(1), destination: try Self.model(2),
                mapping: try Self.mapping(to: 2, policy: "FailingImageTestPolicy")
            ).run()
        }
        #expect(error?.code == .entityMigrationPolicy)
        var options = MigrationOptions()
        options.dryRun = true
        let report = try HeavyweightMigration(
            store: url, source: try Self.model(1), destination: try Self.model(2), mapping: try Self.mapping(to: 2),
            options: options
        ).run()
        #expect(report.dryRun && report.externalFiles == 2)
        #expect(try MigrationFixtures.files(folder) == before)
        #expect(ExternalDataFixtures.files(of: url) == filesBefore)
        #expect(try images(url, version: 1) == [.data(small), .data(large1), .data(large2), nil])
    }

    @Test("a lightweight migration runs in place when storage is unchanged, and object by object when it changes")
    func lightweight() throws {
        let url = try sourceStore()
        let inPlace = try LightweightMigration(store: url, source: try Self.model(1), destination: try Self.model(2))
            .run()
        #expect(inPlace.inPlace)
        #expect(try images(url, version: 2) == [.data(small), .data(large1), .data(large2), nil])

        let other = TemporaryDirectory()
        let second = try other.copy(url)
        try FileManager.default.copyItem(
            at: CompanionFiles.supportFolder(of: url), to: CompanionFiles.supportFolder(of: second))
        let v2to3 = try LightweightMigration(store: second, source: try Self.model(2), destination: try Self.model(3))
            .run()
        #expect(!v2to3.inPlace)
        #expect(v2to3.inPlaceObstacle?.contains("external storage") == true, "\(v2to3.inPlaceObstacle ?? "none")")
        #expect(try storedColumn(second, "ZIMAGE") == [.blob(small), .blob(large1), .blob(large2), .null])
    }

    /// The scene of a swap cut short: the old store with its files and the new files the
    /// migration added, the complete new store beside it, both lists and the swap record; with
    /// `renamed`, the new store already took the old one's place.
    func interruptedSwap(renamed: Bool, record: Bool = true) throws -> (store: URL, newFiles: [String]) {
        let url = try sourceStore()
        let other = TemporaryDirectory()
        let migrated = try other.copy(url)
        try FileManager.default.copyItem(
            at: CompanionFiles.supportFolder(of: url), to: CompanionFiles.supportFolder(of: migrated))
        try HeavyweightMigration(
            store: migrated, source: try Self.model(1), destination: try Self.model(2),
            mapping: try Self.mapping(to: 2, policy: "ReversingImageTestPolicy")
        ).run()
        let added = Set(ExternalDataFixtures.files(of: migrated)).subtracting(ExternalDataFixtures.files(of: url))
            .sorted()
        let external = CompanionFiles.supportFolder(of: url).appendingPathComponent("_EXTERNAL_DATA")
        for name in added {
            try FileManager.default.copyItem(
                at: CompanionFiles.supportFolder(of: migrated).appendingPathComponent("_EXTERNAL_DATA/\(name)"),
                to: external.appendingPathComponent(name))
        }
        try Data(added.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: url.path + ".molt-new-files"))
        try Data("\(name1)\n\(name2)\n".utf8).write(to: URL(fileURLWithPath: url.path + ".molt-old-files"))
        if record {
            try Data(#"{"format": 1, "newStore": "\#(url.path).molt-new"}"#.utf8).write(
                to: URL(fileURLWithPath: url.path + ".molt-swap"))
        }
        if renamed {
            try FileManager.default.removeItem(at: url)
            try FileManager.default.copyItem(at: migrated, to: url)
        } else {
            try FileManager.default.copyItem(atPath: migrated.path, toPath: url.path + ".molt-new")
        }
        return (url, added)
    }

    var reversed: [AttributeValue?] {
        [.data(Data(small.reversed())), .data(Data(large1.reversed())), .data(Data(large2.reversed())), nil]
    }

    @Test("a swap cut short before or after its rename is finished by recovery", arguments: [false, true])
    func rollForward(renamed: Bool) throws {
        let (url, added) = try interruptedSwap(renamed: renamed)
        #expect(added.count == 2)
        #expect(
            try images(url, version: renamed ? 2 : 1)
                == (renamed ? reversed : [.data(small), .data(large1), .data(large2), nil]),
            "readable as it is, before recovery")
        #expect(try StoreRecovery.recover(at: url) == .finishedSwap)
        #expect(try images(url, version: 2) == reversed)
        #expect(ExternalDataFixtures.files(of: url) == (added + [orphan]).sorted())
        #expect(try MigrationFixtures.files(folder) == ["Photos.sqlite", ".Photos_SUPPORT"].sorted())
    }

    @Test("a migration that must be dropped takes its files back and leaves the old store's")
    func rollBack() throws {
        for record in [false, true] {
            let (url, _) = try interruptedSwap(renamed: false, record: record)
            // With a record, the new store is dropped only because the old store was written since.
            if record { try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: url.path + "-wal")) }
            #expect(try StoreRecovery.recover(at: url) == .removedUnfinishedMigration)
            try? FileManager.default.removeItem(atPath: url.path + "-wal")
            #expect(try images(url, version: 1) == [.data(small), .data(large1), .data(large2), nil])
            #expect(ExternalDataFixtures.files(of: url) == [name1, name2, orphan].sorted())
            #expect(try MigrationFixtures.files(folder) == ["Photos.sqlite", ".Photos_SUPPORT"].sorted())
            try FileManager.default.removeItem(at: url)
            try FileManager.default.removeItem(at: CompanionFiles.supportFolder(of: url))
        }
    }
}
