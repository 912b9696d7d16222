import Foundation
import MoltCore
import MoltMapping
@_spi(RouteSwitches) import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Pass 2 of the library step: each new Book gets its owner, the User pass 1 made, found again by
/// `userId` (the way the 2013 app's policy fetches the first pass's objects).
final class BookOwnerTestPolicy: EntityMigrationPolicy {
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let book = try manager.createDefaultDestinationInstance(for: source)
        var request = FetchRequest(entityName: "User")
        request.predicate = ObjectPredicate(format: "userId == %@", try source.value("ownerId"))
        let owners = try manager.destinationContext.fetch(request)
        try manager.setRelationship("owner", of: book, to: Array(owners.prefix(1)))
    }
}

/// A step shipped as two mapping models run one after the other into one new store (Core Data's
/// "multiple passes"), whose first pass has no policy and could on its own run as SQL: every
/// pass runs, and the second sees what the first made.
@Suite("A step of two passes whose first needs no object loaded")
struct TwoPassStepTests {
    static let version2 = """
        <entity name="User" representedClassName="User">
            <attribute name="userId" attributeType="Integer 64" usesScalarValueType="YES"/>
            <attribute name="name" attributeType="String"/>
        </entity>
        <entity name="Author" representedClassName="Author">
            <attribute name="name" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
        </entity>
        <entity name="Book" representedClassName="Book">
            <attribute name="title" attributeType="String"/>
            <attribute name="ownerId" attributeType="Integer 64" usesScalarValueType="YES"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
            <relationship name="file" optional="YES" maxCount="1" deletionRule="Cascade" destinationEntity="File" inverseName="book" inverseEntity="File"/>
        </entity>
        <entity name="File" representedClassName="File">
            <attribute name="path" attributeType="String"/>
            <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="file" inverseEntity="Book"/>
        </entity>
        """

    static let version3 = """
        <entity name="User" representedClassName="User">
            <attribute name="userId" attributeType="Integer 64" usesScalarValueType="YES"/>
            <attribute name="name" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="owner" inverseEntity="Book"/>
        </entity>
        <entity name="Author" representedClassName="Author">
            <attribute name="name" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
        </entity>
        <entity name="Book" representedClassName="Book">
            <attribute name="title" attributeType="String"/>
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="User" inverseName="books" inverseEntity="User"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
            <relationship name="file" optional="YES" maxCount="1" deletionRule="Cascade" destinationEntity="File" inverseName="book" inverseEntity="File"/>
        </entity>
        <entity name="File" representedClassName="File">
            <attribute name="path" attributeType="String"/>
            <attribute name="size" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="file" inverseEntity="Book"/>
        </entity>
        """

    static let seed = """
        {"format": "molt-objects", "version": 1, "entities": {
          "User": [
            {"@id": "User/1", "userId": 7, "name": "ann"},
            {"@id": "User/2", "userId": 8, "name": "bo"},
            {"@id": "User/3", "userId": 9, "name": "cy"}],
          "Author": [
            {"@id": "Author/1", "name": "Franz Kafka", "books": ["Book/1", "Book/2"]},
            {"@id": "Author/2", "name": "Clarice Lispector", "books": ["Book/3"]},
            {"@id": "Author/3", "name": "Italo Calvino", "books": ["Book/4"]}],
          "Book": [
            {"@id": "Book/1", "title": "The Trial", "ownerId": 7, "file": "File/1"},
            {"@id": "Book/2", "title": "The Castle", "ownerId": 8, "file": "File/2"},
            {"@id": "Book/3", "title": "The Hour of the Star", "ownerId": 7, "file": "File/3"},
            {"@id": "Book/4", "title": "Invisible Cities", "ownerId": 9, "file": "File/4"}],
          "File": [
            {"@id": "File/1", "path": "trial.epub"}, {"@id": "File/2", "path": "castle.epub"},
            {"@id": "File/3", "path": "hour.epub"}, {"@id": "File/4", "path": "cities.epub"}]
        }}
        """

    /// Pass 1: the users alone, no policy (a mapping SQL could run by itself).
    static let usersPass = """
        <mapping-model format="1" source-model="Model2" destination-model="Model3">
            <entity-mapping name="UserToUser" type="copy" source="User" destination="User"/>
        </mapping-model>
        """

    /// Pass 2: books, authors and files; the books' policy finds pass 1's users.
    static let booksPass = """
        <mapping-model format="1" source-model="Model2" destination-model="Model3">
            <entity-mapping name="AuthorToAuthor" type="copy" source="Author" destination="Author"/>
            <entity-mapping name="BookToBook" type="transform" source="Book" destination="Book" policy="BookOwnerTestPolicy"/>
            <entity-mapping name="FileToFile" type="transform" source="File" destination="File">
                <attribute name="size" value="length($source.path)"/>
            </entity-mapping>
        </mapping-model>
        """

    let folder = TemporaryDirectory("molt-two-pass")

    init() {
        CompiledPolicies.register([BookOwnerTestPolicy.self])
    }

    func setUp() throws -> (store: URL, v2: ObjectModel, v3: ObjectModel, passes: [MappingModel]) {
        let v2 = try InferenceCase.model(Self.version2, name: "Model2")
        let v3 = try InferenceCase.model(Self.version3, name: "Model3")
        let store = try MigrationFixtures.store("Library.sqlite", in: folder, model: v2, seed: Data(Self.seed.utf8))
        let passes = try [Self.usersPass, Self.booksPass].map { try MigrationFixtures.mapping(text: $0) }
        return (store, v2, v3, passes)
    }

    /// Every object of `entity` in the store at `url`, read with `model`.
    func objects(_ entity: String, in url: URL, _ model: ObjectModel) throws -> [StoredObject] {
        try ObjectStore(store: SQLiteStore(at: url), model: model).objects(of: entity).all()
    }

    @Test("both passes run: 3 users, 4 books with their owners, 3 authors, 4 files")
    func everyPassRuns() throws {
        let (store, v2, v3, passes) = try setUp()
        let report = try HeavyweightMigration(store: store, source: v2, destination: v3, mappings: passes).run()
        #expect(report.passes == 2)
        #expect(report.route != .sqlOnCopy, "a step of two passes cannot run as one SQL copy")
        // No object is left behind; only the old owner numbers, which the policy turns into links.
        #expect(
            report.discarded.map(\.kind) == [.attributeValues(entity: "Book", attribute: "ownerId")],
            "\(report.discarded)")
        #expect(report.destinationCounts == ["User": 3, "Book": 4, "Author": 3, "File": 4])
        let plan = try #require(report.plan)
        #expect(plan.route == .objects)
        #expect(plan.reason.contains("2 passes"), "\(plan.reason)")
        #expect(plan.passes.map(\.number) == [1, 2])
        #expect(plan.passes[1].relate.map(\.mapping) == ["AuthorToAuthor", "BookToBook", "FileToFile"])

        // Kafka keeps his two books; every book found its owner among pass 1's users.
        let kafka = try #require(
            try objects("Author", in: store, v3).first { $0.attributes["name"] == .string("Franz Kafka") })
        #expect(kafka.relationships["books"]?.objectIDs.count == 2)
        for book in try objects("Book", in: store, v3) {
            #expect(book.relationships["owner"]?.objectIDs.count == 1, "\(book)")
            #expect(book.relationships["file"]?.objectIDs.count == 1, "\(book)")
        }
        let ann = try #require(try objects("User", in: store, v3).first { $0.attributes["name"] == .string("ann") })
        #expect(ann.relationships["books"]?.objectIDs.count == 2)
    }

    @Test("the plan's route is the object path's result: forcing objects everywhere gives the same store")
    func sameAsObjectByObject() throws {
        let (store, v2, v3, passes) = try setUp()
        var objectByObject = MigrationOptions()
        objectByObject.allowsSQLOnCopy = false
        objectByObject.allowsRelateInSQL = false
        objectByObject.allowsRelateInBatches = false
        let runs = EquivalentRuns(
            result: { try EquivalentRuns.dump($0, v3) }, unmigrated: { try EquivalentRuns.dump($0, v2) })
        let outcome = try runs.compare(
            store, in: folder,
            expected: .init("object by object") {
                try HeavyweightMigration(
                    store: $0, source: v2, destination: v3, mappings: passes, options: objectByObject
                ).run()
            },
            actual: .init("planned") {
                try HeavyweightMigration(store: $0, source: v2, destination: v3, mappings: passes).run()
            },
            label: "two passes")
        let reports = try #require(outcome)
        #expect(reports.expected.destinationCounts == reports.actual.destinationCounts)
        #expect(reports.actual.destinationCounts["Book"] == 4)
    }

    @Test("a single pass with no policy still runs as SQL on a copy, and says why")
    func singlePassStillSQL() throws {
        let (store, v2, v3, _) = try setUp()
        let mapping = try MigrationFixtures.mapping(
            text: """
                <mapping-model format="1" source-model="Model2" destination-model="Model3">
                    <entity-mapping name="UserToUser" type="copy" source="User" destination="User"/>
                    <entity-mapping name="AuthorToAuthor" type="copy" source="Author" destination="Author"/>
                    <entity-mapping name="BookToBook" type="copy" source="Book" destination="Book"/>
                    <entity-mapping name="FileToFile" type="copy" source="File" destination="File"/>
                </mapping-model>
                """)
        let report = try HeavyweightMigration(store: store, source: v2, destination: v3, mapping: mapping).run()
        #expect(report.route == .sqlOnCopy)
        #expect(report.plan?.route == .sqlOnCopy)
        #expect(report.plan?.reason.contains("no policy") == true, "\(report.plan?.reason ?? "")")
        #expect(report.destinationCounts == ["User": 3, "Book": 4, "Author": 3, "File": 4])
    }
}
