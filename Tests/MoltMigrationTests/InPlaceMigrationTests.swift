import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// How an in-place migration changes the store: which tables it keeps, extends or rebuilds,
/// what it reports, and that a failure, a cancellation or a dry run leaves the store as it was.
@Suite("In-place lightweight migration")
struct InPlaceMigrationTests {
    static let library = """
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <attribute name="born" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
        </entity>
        <entity name="Book" representedClassName="Book" syncable="YES">
            <attribute name="title" attributeType="String"/>
            <attribute name="pages" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
        </entity>
        """

    static func model(_ body: String, _ name: String) throws -> ObjectModel {
        try InferenceCase.model(body, name: name)
    }

    /// Version "V2": the library model with one piece of its XML replaced.
    static func version2(replacing old: String, with new: String) throws -> ObjectModel {
        try model(library.replacingOccurrences(of: old, with: new), "V2")
    }

    /// A seeded store of `body` in a new folder.
    static func store(_ body: String, seed: UInt64 = 1) throws -> (TemporaryDirectory, URL, ObjectModel) {
        let folder = TemporaryDirectory("molt-inplace")
        let model = try model(body, "V1")
        let url = folder.path("Store.sqlite")
        var seeder = StoreSeeder()
        seeder.seed = seed
        _ = try ObjectStore.create(at: url, model: model) { try seeder.fill($0) }
        return (folder, url, model)
    }

    static func tableSQL(_ url: URL, _ table: String) throws -> String {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
        return try connection.scalar("SELECT sql FROM sqlite_master WHERE name = ?", [.text(table)])?.textValue ?? ""
    }

    static func dump(_ url: URL, _ model: ObjectModel) throws -> String {
        try ObjectsJSONExporter().exportString(ObjectStore(store: SQLiteStore(at: url), model: model))
    }

    @Test("a new optional attribute is added with ALTER TABLE; other tables are not rebuilt")
    func addsColumn() throws {
        let (folder, url, v1) = try Self.store(Self.library)
        defer { withExtendedLifetime(folder) {} }
        let v2 = try Self.version2(
            replacing: #"<attribute name="title" attributeType="String"/>"#,
            with:
                #"<attribute name="title" attributeType="String"/><attribute name="isbn" optional="YES" attributeType="String"/>"#
        )
        let authorTable = try Self.tableSQL(url, "ZAUTHOR")
        let report = try LightweightMigration(store: url, source: v1, destination: v2).run()
        #expect(report.inPlace)
        // ADD COLUMN appends: the new column comes last, not in the layout's place.
        #expect(try Self.tableSQL(url, "ZBOOK").hasSuffix(", \"ZISBN\" VARCHAR)"))
        #expect(try Self.tableSQL(url, "ZAUTHOR") == authorTable)
        let store = try ObjectStore(store: SQLiteStore(at: url), model: v2)
        let books = try store.objects(of: "Book").all()
        #expect(books.count == 7 && books.allSatisfy { $0.attributes["isbn"] == nil })
    }

    @Test("a new attribute with a default gets the default in every existing object")
    func addsColumnWithDefault() throws {
        let (folder, url, v1) = try Self.store(Self.library)
        defer { withExtendedLifetime(folder) {} }
        let v2 = try Self.version2(
            replacing: #"<attribute name="title" attributeType="String"/>"#,
            with:
                #"<attribute name="title" attributeType="String"/><attribute name="stock" attributeType="Integer 16" defaultValueString="3" usesScalarValueType="YES"/>"#
        )
        #expect(try LightweightMigration(store: url, source: v1, destination: v2).run().inPlace)
        let books = try ObjectStore(store: SQLiteStore(at: url), model: v2).objects(of: "Book").all()
        #expect(books.allSatisfy { $0.attributes["stock"] == .integer(3) })
    }

    @Test("a changed type rebuilds the table, converting each value as the heavyweight engine does")
    func rebuildsTable() throws {
        let (folder, url, v1) = try Self.store(Self.library)
        defer { withExtendedLifetime(folder) {} }
        let before = try ObjectStore(store: SQLiteStore(at: url), model: v1).objects(of: "Book").all()
        let v2 = try Self.version2(
            replacing: #"attributeType="Integer 32" defaultValueString="0""#,
            with: #"attributeType="String" defaultValueString="0""#)
        let collected = Collected()
        let context = RunContext(progress: { progress in
            if progress.pass == .alter, let step = progress.step { collected.append(step) }
        })
        let report = try LightweightMigration(store: url, source: v1, destination: v2, context: context).run()
        #expect(report.inPlace)
        let steps = collected.items
        #expect(steps.contains("ZBOOK") && steps.contains("ZAUTHOR"), "progress names each table: \(steps)")
        let after = try ObjectStore(store: SQLiteStore(at: url), model: v2).objects(of: "Book").all()
        #expect(after.map(\.id) == before.map(\.id), "objects keep their keys")
        for (old, new) in zip(before, after) {
            let expected: AttributeValue? = old.attributes["pages"].map {
                guard case .integer(let number) = $0 else { return $0 }
                return .string(String(number))
            }
            #expect(new.attributes["pages"] == expected)
        }
        #expect(try Self.tableSQL(url, "Z_MOLT_NEW_1").isEmpty, "no temporary table is left")
    }

    @Test("the store's metadata takes the new hashes and checksum, and keeps its UUID and the app's keys")
    func metadata() throws {
        let (folder, url, v1) = try Self.store(Self.library)
        defer { withExtendedLifetime(folder) {} }
        let old = try SQLiteStore(at: url).metadata
        let v2 = try Self.version2(replacing: "\"pages\"", with: "\"pageCount\"")
        try LightweightMigration(store: url, source: v1, destination: v2).run()
        let new = try SQLiteStore(at: url)
        #expect(new.metadata.storeUUID == old.storeUUID)
        #expect(new.metadata.entityVersionHashes == (try v2.entityVersionHashes()))
        #expect(old.modelChecksum == (try v1.versionChecksum()))
        #expect(new.metadata.modelChecksum == (try v2.versionChecksum()))
        let others = { (metadata: StoreMetadata) in
            metadata.additionalEntries.filter { $0.key != StoreMetadata.modelChecksumKey }
        }
        #expect(others(new.metadata) == others(old))
        #expect(new.entityRecords.map(\.name) == ["Author", "Book"])
        #expect(new.entityRecords.first { $0.name == "Book" }?.maximumKey == 7)
    }

    @Test("an object with several objects in what becomes a to-one stops the migration; nothing changes")
    func toOneConflict() throws {
        let (folder, url, v1) = try Self.store(Self.library)
        defer { withExtendedLifetime(folder) {} }
        let before = try Self.dump(url, v1)
        let v2 = try Self.version2(
            replacing: #"<relationship name="books" optional="YES" toMany="YES""#,
            with: #"<relationship name="books" optional="YES" maxCount="1""#)
        #expect {
            try LightweightMigration(store: url, source: v1, destination: v2).run()
        } throws: { error in
            let molt = error as? MoltError
            return molt?.code == .migration && molt?.property == "books" && molt?.message.contains("to-one") == true
        }
        #expect(try Self.dump(url, v1) == before)
        #expect(try SQLiteStore(at: url).compatibility(with: v1).isCompatible)
    }

    @Test("a dry run validates and counts, then leaves the store as it was")
    func dryRun() throws {
        let (folder, url, v1) = try Self.store(Self.library)
        defer { withExtendedLifetime(folder) {} }
        let bytes = try Data(contentsOf: url)
        let v2 = try Self.version2(replacing: #"name="title""#, with: #"name="name2" elementID="title""#)
        var options = MigrationOptions()
        options.dryRun = true
        let report = try LightweightMigration(store: url, source: v1, destination: v2, options: options).run()
        #expect(report.inPlace && report.dryRun)
        #expect(report.destinationCounts["Book"] == 7)
        #expect(try SQLiteStore(at: url).compatibility(with: v1).isCompatible)
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test("--backup keeps a complete copy of the store as it was")
    func backup() throws {
        let (folder, url, v1) = try Self.store(Self.library)
        defer { withExtendedLifetime(folder) {} }
        let before = try Self.dump(url, v1)
        let v2 = try Self.version2(replacing: #"name="title""#, with: #"name="heading" elementID="title""#)
        var options = MigrationOptions()
        options.backup = true
        let report = try LightweightMigration(store: url, source: v1, destination: v2, options: options).run()
        let backup = try #require(report.backup)
        #expect(backup.contains(".molt-backup-"))
        #expect(try Self.dump(URL(fileURLWithPath: backup), v1) == before)
        #expect(try SQLiteStore(at: url).compatibility(with: v2).isCompatible)
    }

    @Test("objects failing the new model's validation stop the migration with Core Data's code")
    func validation() throws {
        let (folder, url, v1) = try Self.store(Self.library)
        defer { withExtendedLifetime(folder) {} }
        let before = try Self.dump(url, v1)
        // born becomes required without a default: inference refuses, so force the mapping.
        let v2 = try Self.version2(
            replacing: #"<attribute name="born" optional="YES" attributeType="Date""#,
            with: #"<attribute name="born" attributeType="Date""#)
        let mapping = MappingModel(
            sourceModelName: "V1", destinationModelName: "V2",
            entityMappings: [
                EntityMapping(name: "Author", kind: .copy, sourceEntityName: "Author", destinationEntityName: "Author"),
                EntityMapping(name: "Book", kind: .copy, sourceEntityName: "Book", destinationEntityName: "Book"),
            ])
        let report = Result {
            try LightweightMigration(store: url, source: v1, destination: v2, mapping: mapping).run()
        }
        guard case .failure(let error as MoltError) = report else {
            Issue.record("the migration should fail validation")
            return
        }
        #expect([.validationMissingMandatoryProperty, .validationMultiple].contains(error.code))
        #expect(try Self.dump(url, v1) == before)
    }

    @Test("cancelling stops with 134120 and leaves the store as it was")
    func cancel() throws {
        let (folder, url, v1) = try Self.store(Self.library)
        defer { withExtendedLifetime(folder) {} }
        let before = try Self.dump(url, v1)
        let v2 = try Self.version2(replacing: #"attributeType="Integer 32""#, with: #"attributeType="Integer 64""#)
        let holder = MigrationHolder()
        let context = RunContext(progress: { progress in
            if progress.pass == .alter, progress.completed >= 2 { holder.migration?.cancel() }
        })
        let migration = try LightweightMigration(store: url, source: v1, destination: v2, context: context)
        holder.migration = migration
        #expect {
            try migration.run()
        } throws: { error in
            (error as? MoltError)?.code == .migrationCancelled
        }
        #expect(try Self.dump(url, v1) == before)
        #expect(try SQLiteStore(at: url).compatibility(with: v1).isCompatible)
    }

    @Test("a store in use by another connection is refused before anything changes")
    func storeInUse() throws {
        let (folder, url, v1) = try Self.store(Self.library)
        defer { withExtendedLifetime(folder) {} }
        let v2 = try Self.version2(replacing: #"name="title""#, with: #"name="heading" elementID="title""#)
        let other = try SQLiteConnection(path: url.path, mode: .readWrite)
        try other.execute("BEGIN IMMEDIATE")
        defer { try? other.execute("ROLLBACK") }
        #expect {
            try LightweightMigration(store: url, source: v1, destination: v2).run()
        } throws: { error in
            (error as? MoltError)?.message.contains("another process") == true
        }
    }

    @Test("merging two tables is left to the heavyweight engine, and the report says why")
    func fallsBack() throws {
        let inferenceCase = InferenceCases.named("entity moved into a hierarchy")
        let (source, destination) = try inferenceCase.models()
        let folder = TemporaryDirectory("molt-inplace")
        defer { withExtendedLifetime(folder) {} }
        let url = folder.path("Store.sqlite")
        _ = try ObjectStore.create(at: url, model: source) { try StoreSeeder().fill($0) }
        let report = try LightweightMigration(store: url, source: source, destination: destination).run()
        #expect(!report.inPlace)
        #expect(report.inPlaceObstacle?.contains("several tables") == true)
        #expect(try SQLiteStore(at: url).compatibility(with: destination).isCompatible)
    }

    @Test("a mapping that cannot be inferred gives Core Data's 134190 with every reason")
    func notInferable() throws {
        let v1 = try Self.model(Self.library, "V1")
        let v2 = try Self.version2(replacing: #"attributeType="Integer 32""#, with: #"attributeType="Boolean""#)
        #expect {
            _ = try LightweightMigration(store: URL(fileURLWithPath: "/nonexistent"), source: v1, destination: v2)
        } throws: { error in
            let molt = error as? MoltError
            return molt?.code == .inferredMapping && molt?.details.isEmpty == false
                && molt?.message.contains("Book.pages") == true
        }
    }
}

/// Lets a progress callback reach the migration it reports on.
final class MigrationHolder: @unchecked Sendable {
    var migration: LightweightMigration?
}
