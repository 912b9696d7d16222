import Foundation
import MoltCore
import MoltMapping
@_spi(RouteSwitches) import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Synchronization
import Testing

/// ``CountingRelationshipsPolicy`` counting this suite's calls.
final class CountingRelationshipsTestPolicy: CountingRelationshipsPolicy {
    override class var policyName: String { "CountingRelationshipsTestPolicy" }
}

/// The relate pass writing a relationship for a batch of objects at once leaves every row of
/// the store, order positions included, as writing each object's relationships in turn does.
@Suite("Relationships written a batch at a time")
struct RelateInBatchesTests {
    init() {
        CompiledPolicies.register([KeepsDefaultsTestPolicy.self, CountingRelationshipsTestPolicy.self])
    }

    /// Every row of every table but the metadata, in a fixed order.
    static func rows(_ url: URL) throws -> String {
        let store = try SQLiteStore(at: url, readOnly: true)
        let connection = store.connection
        let tables = try connection.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('Z_METADATA', 'Z_MODELCACHE') ORDER BY name"
        ).compactMap(\.first?.textValue)
        var lines: [String] = []
        for table in tables {
            let count = try connection.rows("SELECT * FROM \(SQL.identifier(table)) LIMIT 1").first?.count ?? 0
            let order = count == 0 ? "" : " ORDER BY " + (1...count).map(String.init).joined(separator: ", ")
            lines.append("[\(table)]")
            for row in try connection.rows("SELECT * FROM \(SQL.identifier(table))\(order)") {
                lines.append(row.map { "\($0)" }.joined(separator: " | "))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Migrates copies of `original` object by object, with and without batches, and compares
    /// every row; gives both runs' outcome (nil when both failed alike).
    static func compare(
        _ original: URL, in folder: TemporaryDirectory, source: ObjectModel, destination: ObjectModel,
        mapping: MappingModel, batchSize: Int, label: String
    ) throws -> EquivalentRuns.Outcome? {
        var options = MigrationOptions()
        options.allowsSQLOnCopy = false
        options.allowsRelateInSQL = false
        options.batchSize = batchSize
        var plainOptions = options
        plainOptions.allowsRelateInBatches = false
        var runs = EquivalentRuns(result: rows)
        // The same first error, word for word: batching must not change which object fails.
        runs.sameFailure = { "\($0)" == "\($1)" }
        let outcome = try runs.compare(
            original, in: folder,
            expected: .init("object by object") {
                try HeavyweightMigration(
                    store: $0, source: source, destination: destination, mapping: mapping, options: plainOptions
                ).run()
            },
            actual: .init("batches of \(batchSize)") {
                try HeavyweightMigration(
                    store: $0, source: source, destination: destination, mapping: mapping, options: options
                ).run()
            },
            label: label)
        if let outcome { #expect(outcome.expected.relatedInBatches.isEmpty) }
        return outcome
    }

    @Test("same rows as object by object, for every inference rule", arguments: InferenceCases.inferable)
    func everyInferenceRule(_ inferenceCase: InferenceCase) throws {
        let (source, destination) = try inferenceCase.models()
        let inferred = try #require(MappingInference.infer(from: source, to: destination).mapping)
        for mapping in [inferred, RelateInSQLTests.withPolicy(inferred, KeepsDefaultsTestPolicy.policyName)] {
            for seeder in StoreSeeder.twoShapes {
                let folder = TemporaryDirectory("molt-batched")
                defer { withExtendedLifetime(folder) {} }
                let original = folder.path("Store.sqlite")
                _ = try ObjectStore.create(at: original, model: source) { try seeder.fill($0) }
                for batchSize in [3, 500] {
                    _ = try Self.compare(
                        original, in: folder, source: source, destination: destination, mapping: mapping,
                        batchSize: batchSize, label: "\(inferenceCase.name), seed \(seeder.seed)")
                }
            }
        }
    }

    // MARK: Claims that cross within a batch

    /// Authors and books; in the new version an author *leads* books (an ordered to-many whose
    /// inverse is a book's `lead`), and an author's books are ordered on the author's side.
    static let sourceModel = """
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="authors" inverseEntity="Book"/>
            <relationship name="edited" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="editor" inverseEntity="Book"/>
        </entity>
        <entity name="Book" representedClassName="Book" syncable="YES">
            <attribute name="title" attributeType="String"/>
            <relationship name="authors" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
            <relationship name="editor" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="edited" inverseEntity="Author"/>
        </entity>
        """

    static let destinationModel = """
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="authors" inverseEntity="Book"/>
            <relationship name="led" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="lead" inverseEntity="Book"/>
        </entity>
        <entity name="Book" representedClassName="Book" syncable="YES">
            <attribute name="title" attributeType="String"/>
            <relationship name="authors" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
            <relationship name="lead" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="led" inverseEntity="Author"/>
        </entity>
        """

    /// Each author leads every book it wrote (so a book with several authors is claimed by each
    /// in turn, the last keeping it), then each book's lead becomes its editor (moving it to the
    /// end of the editor's list, past the books moved there before it), and its authors just
    /// its editor (the other authors' links removed from their ordered lists of books, the
    /// editor's added at the end of the editor's).
    static func mapping(bookLead: String = "$source.editor") -> String {
        """
        <mapping-model format="1" source-model="V1" destination-model="V2">
            <entity-mapping name="AuthorToAuthor" type="transform" source="Author" destination="Author" policy="KeepsDefaultsTestPolicy">
                <relationship name="led" value='FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "BookToBook", $source.books)'/>
            </entity-mapping>
            <entity-mapping name="BookToBook" type="transform" source="Book" destination="Book" policy="KeepsDefaultsTestPolicy">
                <relationship name="lead" value='FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "AuthorToAuthor", \(bookLead))'/>
                <relationship name="authors" value='FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "AuthorToAuthor", $source.editor)'/>
            </entity-mapping>
        </mapping-model>
        """
    }

    /// The two versions, a mapping between them and a folder for the stores.
    struct Setup {
        let source: ObjectModel
        let destination: ObjectModel
        let mapping: MappingModel
        let folder = TemporaryDirectory("molt-batched")
        var original: URL { folder.path("Store.sqlite") }

        init(mapping text: String = RelateInBatchesTests.mapping()) throws {
            source = try InferenceCase.model(RelateInBatchesTests.sourceModel, name: "V1")
            destination = try InferenceCase.model(RelateInBatchesTests.destinationModel, name: "V2")
            mapping = try MigrationFixtures.mapping(text: text)
        }
    }

    /// `authors` authors and `books` books, each book by one to three authors, most with an editor.
    static func seed(_ url: URL, model: ObjectModel, authors: Int, books: Int) throws {
        _ = try ObjectStore.create(at: url, model: model) { writer in
            var random = SplitMix(seed: 11)
            let people = try (0..<authors).map {
                try writer.insert("Author", attributes: ["name": .string("Author \($0)")])
            }
            for index in 0..<books {
                let book = try writer.insert("Book", attributes: ["title": .string("Book \(index)")])
                var chosen: [ObjectID] = []
                for _ in 0..<(1 + Int(random.next() % 3)) {
                    let author = people[random.next(below: authors)]
                    if !chosen.contains(author) { chosen.append(author) }
                }
                try writer.setToMany(book, "authors", to: chosen)
                if random.next() % 5 != 0 {
                    try writer.setToOne(book, "editor", to: people[random.next(below: authors)])
                }
            }
        }
    }

    @Test("targets claimed by several owners of a batch, and owners moved to the end of ordered lists")
    func crossingClaims() throws {
        let setup = try Setup()
        let (source, destination, mapping, folder, original) = (
            setup.source, setup.destination, setup.mapping, setup.folder, setup.original
        )
        try Self.seed(original, model: source, authors: 23, books: 700)
        var batchesOf97: URL?
        for batchSize in [1, 4, 97, 500, 1000] {
            let outcome = try #require(
                try Self.compare(
                    original, in: folder, source: source, destination: destination, mapping: mapping,
                    batchSize: batchSize, label: "crossing claims"))
            let batched = outcome.actual.relatedInBatches
            #expect(Set(batched) == ["AuthorToAuthor", "BookToBook"], "\(batched)")
            if batchSize == 97 { batchesOf97 = outcome.actualStore }
        }
        // The claims did cross: some book is led by (moved to) an author who did not write it,
        // and some author lost a book it wrote from its ordered list.
        func all(_ url: URL, _ model: ObjectModel) throws -> [ObjectID: StoredObject] {
            let store = try ObjectStore(store: SQLiteStore(at: url, readOnly: true), model: model)
            var objects: [ObjectID: StoredObject] = [:]
            for entity in ["Book", "Author"] {
                let cursor = try store.objects(of: entity)
                while let batch = try cursor.nextBatch() { for object in batch { objects[object.id] = object } }
            }
            return objects
        }
        let before = try all(original, source)
        let after = try all(try #require(batchesOf97), destination)
        #expect(
            after.values.contains { book in
                guard case .toOne(let lead?)? = book.relationships["lead"],
                    case .toMany(let wrote)? = before[book.id]?.relationships["authors"]
                else { return false }
                return !wrote.contains(lead)
            })
        #expect(
            after.values.contains { author in
                guard case .toMany(let now)? = author.relationships["books"],
                    case .toMany(let wrote)? = before[author.id]?.relationships["books"]
                else { return false }
                return now.count < wrote.count
            })
    }

    @Test("a link removed earlier in the batch no longer counts at the end of an ordered list")
    func removedLinkNotCounted() throws {
        let setup = try Setup()
        let (source, destination, mapping, folder, original) = (
            setup.source, setup.destination, setup.mapping, setup.folder, setup.original
        )
        // A wrote B1 and B2 (A's books: B1 at 1, B2 at 2); C wrote B3. B2 moves to its editor C
        // (its place in A's list removed), then B3 to its editor A: it goes after B1, at 2.
        _ = try ObjectStore.create(at: original, model: source) { writer in
            let a = try writer.insert("Author", attributes: ["name": .string("A")])
            let c = try writer.insert("Author", attributes: ["name": .string("C")])
            for (title, author, editor) in [("B1", a, a), ("B2", a, c), ("B3", c, a)] {
                let book = try writer.insert("Book", attributes: ["title": .string(title)])
                try writer.setToMany(book, "authors", to: [author])
                try writer.setToOne(book, "editor", to: editor)
            }
        }
        let outcome = try #require(
            try Self.compare(
                original, in: folder, source: source, destination: destination, mapping: mapping, batchSize: 10,
                label: "removed link"))
        #expect(outcome.actual.relatedInBatches.contains("BookToBook"))
    }

    /// The source model's relationships, unordered, with each mapping's values naming the other.
    static let inverseMapping = """
        <mapping-model format="1" source-model="V1" destination-model="V1">
            <entity-mapping name="AuthorToAuthor" type="transform" source="Author" destination="Author" policy="KeepsDefaultsTestPolicy">
                <relationship name="books" value='FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "BookToBook", $source.books)'/>
                <relationship name="edited" value='FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "BookToBook", $source.edited)'/>
            </entity-mapping>
            <entity-mapping name="BookToBook" type="transform" source="Book" destination="Book" policy="KeepsDefaultsTestPolicy">
                <relationship name="authors" value='FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "AuthorToAuthor", $source.authors)'/>
                <relationship name="editor" value='FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "AuthorToAuthor", $source.editor)'/>
            </entity-mapping>
        </mapping-model>
        """

    /// The source model, ``inverseMapping``, and a store of `authors` and `books` in a new folder.
    static func inverseSetup(
        authors: Int, books: Int
    ) throws -> (ObjectModel, MappingModel, TemporaryDirectory, URL) {
        let source = try InferenceCase.model(Self.sourceModel, name: "V1")
        let mapping = try MigrationFixtures.mapping(text: Self.inverseMapping)
        let folder = TemporaryDirectory("molt-batched")
        let original = folder.path("Store.sqlite")
        try Self.seed(original, model: source, authors: authors, books: books)
        return (source, mapping, folder, original)
    }

    @Test("a to-many whose inverse another mapping already wrote is neither read nor written again")
    func inverseAlreadyWritten() throws {
        let (source, mapping, folder, original) = try Self.inverseSetup(authors: 30, books: 200)
        let outcome = try #require(
            try Self.compare(
                original, in: folder, source: source, destination: source, mapping: mapping, batchSize: 50,
                label: "inverse written"))
        #expect(outcome.actual.relatedInBatches == ["AuthorToAuthor", "BookToBook"])

        // Which join-table columns the relate pass read links by: the authors' only, since the
        // books' `authors` is the inverse of what AuthorToAuthor wrote.
        final class Trace: @unchecked Sendable {
            let lock = NSLock()
            var statements: [String] = []
        }
        let trace = Trace()
        var options = MigrationOptions()
        options.allowsSQLOnCopy = false
        options.allowsRelateInSQL = false
        options.batchSize = 50
        options.sqlTrace = { statement in trace.lock.withLock { trace.statements.append(statement) } }
        try HeavyweightMigration(
            store: try folder.copy(original, as: "Traced.sqlite"), source: source, destination: source,
            mapping: mapping, options: options
        ).run()
        let joinReads = try NSRegularExpression(pattern: #"WHERE j\.("[^"]+") BETWEEN"#)
        var owners: Set<String> = []
        for statement in trace.statements {
            for match in joinReads.matches(in: statement, range: NSRange(statement.startIndex..., in: statement)) {
                owners.insert(String(statement[Range(match.range(at: 1), in: statement)!]))
            }
        }
        #expect(owners.count == 1, "join-table links read by \(owners.sorted())")
    }

    /// The read ahead of a batch takes a join table's links without looking their targets up
    /// (``ObjectStore/relationships(of:keys:named:checkingLinkTargets:)``): a link whose target
    /// has no row (a damaged store's) maps to nothing, as object by object, where the read
    /// leaves it out.
    @Test("a join-table link whose target has no row is left out, in batches as object by object")
    func linkWithoutTarget() throws {
        let (source, mapping, folder, original) = try Self.inverseSetup(authors: 12, books: 60)
        let layout = try StoreLayout(model: source)
        let books = try #require(layout.entity(named: "Author")?.relationship(named: "books"))
        guard case .joinTable(let table, let own, let other, _, _, _) = books.storage else {
            Issue.record("Author.books is not held in a join table: the test checks nothing")
            return
        }
        do {
            let store = try SQLiteStore(at: original, readOnly: false)
            try store.connection.run(
                "INSERT INTO \(SQL.identifier(table)) (\(SQL.identifiers([own, other]))) VALUES (2, 999999), (5, 999998)",
                [])
        }
        let outcome = try #require(
            try Self.compare(
                original, in: folder, source: source, destination: source, mapping: mapping, batchSize: 5,
                label: "link without target"))
        #expect(outcome.actual.relatedInBatches.contains("AuthorToAuthor"))
        let migrated = try SQLiteStore(at: outcome.actualStore, readOnly: true)
        let links = try migrated.connection.scalar("SELECT count(*) FROM \(SQL.identifier(table))")?.integerValue
        let missing = try migrated.connection.scalar(
            "SELECT count(*) FROM \(SQL.identifier(table)) WHERE \(SQL.identifier(other)) >= 999998")?.integerValue
        #expect((links ?? 0) > 60)
        #expect(missing == 0)
    }

    @Test("a to-one given several objects fails alike, naming the object, and leaves the store")
    func toOneGivenSeveral() throws {
        let setup = try Setup(mapping: Self.mapping(bookLead: "$source.authors"))
        let (source, destination, mapping, folder, original) = (
            setup.source, setup.destination, setup.mapping, setup.folder, setup.original
        )
        try Self.seed(original, model: source, authors: 5, books: 40)
        let outcome = try Self.compare(
            original, in: folder, source: source, destination: destination, mapping: mapping, batchSize: 16,
            label: "to-one given several")
        #expect(outcome == nil, "the migration should have failed")
        var options = MigrationOptions()
        options.allowsSQLOnCopy = false
        options.allowsRelateInSQL = false
        #expect {
            try HeavyweightMigration(
                store: try folder.copy(original, as: "Again.sqlite"), source: source, destination: destination,
                mapping: mapping, options: options
            ).run()
        } throws: { error in
            let message = "\(error)"
            return message.contains("BookToBook") && message.contains("lead")
                && message.contains("the to-one relationship was given")
        }
    }

    @Test("a policy with its own createRelationships is still called for every object")
    func ownRelationships() throws {
        let setup = try Setup(
            mapping: Self.mapping().replacingOccurrences(
                of: "KeepsDefaultsTestPolicy", with: CountingRelationshipsTestPolicy.policyName))
        let (source, destination, mapping, folder, original) = (
            setup.source, setup.destination, setup.mapping, setup.folder, setup.original
        )
        try Self.seed(original, model: source, authors: 9, books: 60)
        CountingRelationshipsPolicy.reset(CountingRelationshipsTestPolicy.self)
        var options = MigrationOptions()
        options.allowsSQLOnCopy = false
        options.allowsRelateInSQL = false
        let report = try HeavyweightMigration(
            store: try folder.copy(original, as: "Own.sqlite"), source: source, destination: destination,
            mapping: mapping, options: options
        ).run()
        let calls = CountingRelationshipsPolicy.calls(of: CountingRelationshipsTestPolicy.self)
        #expect(report.relatedInBatches.isEmpty)
        #expect(calls == 69)
    }

    // MARK: Join tables filled with their index set aside

    /// A mapping's batches fill an empty join table without its index on the other side's key
    /// (``IndexesSetAside/whileFilling(_:layout:_:_:)``): afterwards the store's indexes are
    /// exactly a new store's, SQLite finds the file whole, and every row is the
    /// object-by-object passes'.
    @Test("a join table filled from empty has its index made again, the same")
    func joinIndexMadeAgain() throws {
        let (source, destination) = try InferenceCases.named("many-to-many unchanged").models()
        let mapping = try #require(MappingInference.infer(from: source, to: destination).mapping)
        let folder = TemporaryDirectory("molt-batched")
        let original = folder.path("Store.sqlite")
        _ = try ObjectStore.create(at: original, model: source) { try StoreSeeder().fill($0) }
        let statements = Mutex<[String]>([])
        var options = MigrationOptions()
        options.allowsSQLOnCopy = false
        options.allowsRelateInSQL = false
        options.sqlTrace = { sql in statements.withLock { $0.append(sql) } }
        let store = try folder.copy(original, as: "Batched.sqlite")
        let report = try HeavyweightMigration(
            store: store, source: source, destination: destination, mapping: mapping, options: options
        ).run()
        #expect(!report.relatedInBatches.isEmpty)
        let dropped = statements.withLock { $0.filter { $0.hasPrefix("DROP INDEX") } }
        #expect(!dropped.isEmpty, "no index was set aside: the test checks nothing")
        let (made, fresh) = try RelateInSQLTests.indexes(of: store, andOfANewStoreOf: destination, in: folder)
        #expect(made == fresh)
        _ = try Self.compare(
            original, in: folder, source: source, destination: destination, mapping: mapping, batchSize: 7,
            label: "join index set aside")
    }
}
