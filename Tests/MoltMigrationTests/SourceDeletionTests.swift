import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Deletes, in `begin`, every Author whose name an earlier Author has (key order), as real
/// policies do ahead of a uniqueness constraint, and notes what the source context then shows.
final class DeduplicatingPolicy: EntityMigrationPolicy {
    required init() {}

    override func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {
        let context = manager.sourceContext
        var seen: Set<String> = []
        var duplicates: [SourceObject] = []
        for author in try context.fetch(FetchRequest(entityName: "Author")) {
            let name = try author.text("name") ?? ""
            if !seen.insert(name).inserted { duplicates.append(author) }
        }
        try context.delete(duplicates)
        let books = try context.fetch(
            FetchRequest(entityName: "Book", predicate: ObjectPredicate(format: "author == nil")))
        PolicyNotes.shared.add(
            manager,
            "authors \(try context.count(for: FetchRequest(entityName: "Author"))), books \(try context.count(for: FetchRequest(entityName: "Book"))), without author: \(try books.map { try $0.text("title") ?? "" }.sorted())"
        )
        if let deleted = duplicates.first {
            let again = try context.fetch(
                FetchRequest(entityName: "Author", predicate: ObjectPredicate(format: "SELF == %@", deleted)))
            PolicyNotes.shared.add(manager, "found again: \(again.count)")
        }
    }
}

@Suite("Deleting source objects from a policy")
struct SourceDeletionTests {
    let folder = TemporaryDirectory("molt-source-delete")

    /// `rule` is the delete rule of Author.books in the source model.
    static func v1(rule: String) -> String {
        """
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="\(rule)" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
        </entity>
        <entity name="Book" representedClassName="Book" syncable="YES">
            <attribute name="title" attributeType="String"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
        </entity>
        """
    }

    /// Author names are unique.
    static let v2 = """
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
            <uniquenessConstraints><uniquenessConstraint><constraint value="name"/></uniquenessConstraint></uniquenessConstraints>
        </entity>
        <entity name="Book" representedClassName="Book" syncable="YES">
            <attribute name="title" attributeType="String"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
        </entity>
        """

    static let seed = Data(
        """
        {"entities": {
          "Author": [{"@id": "Author/1", "name": "Ann"}, {"@id": "Author/2", "name": "Bob"}, {"@id": "Author/3", "name": "Ann"}],
          "Book": [
            {"@id": "Book/1", "title": "First", "author": "Author/1"},
            {"@id": "Book/2", "title": "Second", "author": "Author/3"},
            {"@id": "Book/3", "title": "Third", "author": "Author/3"},
            {"@id": "Book/4", "title": "Fourth", "author": "Author/2"}
          ]
        }, "format": "molt-objects", "version": 1}
        """.utf8)

    func run(
        rule: String, policy: String? = "DeduplicatingPolicy"
    ) throws -> (
        store: URL, report: Result<MigrationReport, MoltError>, v2: ObjectModel
    ) {
        CompiledPolicies.register([DeduplicatingPolicy.self])
        let v1 = try InferenceCase.model(Self.v1(rule: rule), name: "Library")
        let v2 = try InferenceCase.model(Self.v2, name: "Library 2")
        let store = try MigrationFixtures.store("Library.sqlite", in: folder, model: v1, seed: Self.seed)
        let mapping = try MigrationFixtures.mapping(
            text: """
                <mapping-model format="1" source-model="Library" destination-model="Library 2">
                    <entity-mapping name="AuthorToAuthor" type="transform" source="Author" destination="Author"\(policy.map { " policy=\"\($0)\"" } ?? "")/>
                    <entity-mapping name="BookToBook" type="transform" source="Book" destination="Book"/>
                </mapping-model>
                """)
        let before = try Data(contentsOf: store)
        let result: Result<MigrationReport, MoltError>
        do {
            result = .success(
                try HeavyweightMigration(store: store, source: v1, destination: v2, mapping: mapping).run())
        } catch let error as MoltError {
            result = .failure(error)
            #expect(StoreBytes.same(try Data(contentsOf: store), before), "a failed run leaves the store as it was")
        }
        return (store, result, v2)
    }

    func dump(_ store: URL, _ model: ObjectModel) throws -> [String] {
        let migrated = try ObjectStore(store: SQLiteStore(at: store), model: model)
        return try migrated.objects(of: "Book").all().map { book in
            let author = book.relationships["author"]?.objectIDs.first.map { "\($0)" } ?? "none"
            return "\(book.attributes["title"].map { "\($0)" } ?? "?") by \(author)"
        }
    }

    @Test(
        "a begin that deletes duplicates ahead of a uniqueness constraint: they are not migrated, links to them nullified"
    )
    func nullify() throws {
        let (store, result, v2) = try run(rule: "Nullify")
        let report = try result.get()
        #expect(report.deletedSourceObjects == 1)
        #expect(report.destinationCounts == ["Author": 2, "Book": 4])
        #expect(
            PolicyNotes.shared.notes(folder) == [
                "authors 2, books 4, without author: [\"Second\", \"Third\"]", "found again: 0",
            ])
        #expect(
            try dump(store, v2) == [
                "string(\"First\") by Author/1", "string(\"Second\") by none", "string(\"Third\") by none",
                "string(\"Fourth\") by Author/2",
            ])
    }

    @Test("without the deletion, the same run fails on the uniqueness constraint (133021)")
    func withoutDeletion() throws {
        let (_, result, _) = try run(rule: "Nullify", policy: nil)
        guard case .failure(let error) = result else {
            Issue.record("the run should fail")
            return
        }
        #expect(error.code == .constraintConflict, "\(error)")
    }

    @Test("the source model's Cascade rule deletes the duplicate's books too; Deny refuses with 1600")
    func cascadeAndDeny() throws {
        let (store, result, v2) = try run(rule: "Cascade")
        let report = try result.get()
        #expect(report.deletedSourceObjects == 3)
        #expect(report.destinationCounts == ["Author": 2, "Book": 2])
        #expect(try dump(store, v2) == ["string(\"First\") by Author/1", "string(\"Fourth\") by Author/2"])

        let denied = try SourceDeletionTests().run(rule: "Deny").report
        guard case .failure(let error) = denied else {
            Issue.record("a Deny rule should refuse the deletion")
            return
        }
        #expect(error.code == .validationRelationshipDeniedDelete, "\(error)")
        #expect(error.message.contains("the source object Author/3 cannot be deleted"), "\(error)")
    }
}
