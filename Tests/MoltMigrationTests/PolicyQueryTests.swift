import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// What policies saw, by test: the name of the test's temporary folder (the source store's).
final class PolicyNotes: @unchecked Sendable {
    static let shared = PolicyNotes()
    private let lock = NSLock()
    private var notes: [String: [String]] = [:]

    static func key(_ manager: MigrationManager) -> String {
        manager.sourceContext.storeURL.deletingLastPathComponent().lastPathComponent
    }

    func add(_ manager: MigrationManager, _ note: String) {
        lock.lock()
        defer { lock.unlock() }
        notes[Self.key(manager), default: []].append(note)
    }

    func notes(_ folder: TemporaryDirectory) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return notes[folder.url.lastPathComponent] ?? []
    }
}

/// Links each book to its writer by fetching the destination Author an earlier mapping made,
/// and notes what fetches and counts see along the way.
final class WriterLookupPolicy: EntityMigrationPolicy {
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let context = manager.destinationContext
        let booksBefore = try context.count(for: FetchRequest(entityName: "Book"))
        let book = try manager.createDefaultDestinationInstance(for: source)
        let name = try source.objects("author").first?.text("name")
        var request = FetchRequest(entityName: "Author")
        request.predicate = ObjectPredicate(format: "name == %@", name)
        let writers = try context.fetch(request)
        try context.setValue(writers.first, forKey: "writer", of: book)
        PolicyNotes.shared.add(
            manager, "\(try source.text("title") ?? "?"): \(booksBefore) books before, \(writers.count) writer")
    }

    override func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
        let context = manager.destinationContext
        var request = FetchRequest(entityName: "Book")
        request.sortDescriptors = [KeySortDescriptor(key: "year", ascending: false), KeySortDescriptor(key: "title")]
        request.fetchOffset = 1
        request.fetchLimit = 2
        let titles = try context.fetch(request).map { try context.text(forKey: "title", of: $0) ?? "" }
        PolicyNotes.shared.add(manager, "by year, 2nd and 3rd: \(titles.joined(separator: ", "))")
        request.predicate = ObjectPredicate(format: "%K.name BEGINSWITH %@", "writer", "Ann")
        request.fetchOffset = 0
        request.fetchLimit = 0
        PolicyNotes.shared.add(manager, "by Ann: \(try context.count(for: request))")
        let template = ObjectPredicate(format: "year < $year AND writer != nil")
        request.predicate = template.withSubstitutionVariables(["year": 2000])
        PolicyNotes.shared.add(manager, "before 2000 with a writer: \(try context.count(for: request))")
    }
}

/// Makes two shelves once the books are related, then reads relationships and key paths
/// through the destination context and changes them.
final class ShelfReadingPolicy: EntityMigrationPolicy {
    required init() {}

    override func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
        let context = manager.destinationContext
        func books(_ titles: String...) throws -> [DestinationObject] {
            try titles.map { title in
                guard
                    let book = try context.fetch(
                        FetchRequest(entityName: "Book", predicate: ObjectPredicate(format: "title == %@", title))
                    ).first
                else { throw PassTestError.refused("no book \(title)") }
                return book
            }
        }
        let front = try context.insertNewObject(forEntityName: "Shelf", attributes: ["label": "Front"])
        try context.setValue(try books("Provenance", "Ancillary Justice", "Anonymous"), forKey: "items", of: front)
        let back = try context.insertNewObject(forEntityName: "Shelf", attributes: ["label": "Back"])
        try context.setValue(try books("Dune"), forKey: "items", of: back)

        var request = FetchRequest(entityName: "Shelf")
        request.predicate = ObjectPredicate(format: "label == %@", "Front")
        guard let shelf = try context.fetch(request).first else { throw PassTestError.refused("no front shelf") }
        let items = try context.objects(forKey: "items", of: shelf)
        let titles = try items.map { try context.text(forKey: "title", of: $0) ?? "" }
        PolicyNotes.shared.add(manager, "front shelf, in order: \(titles.joined(separator: ", "))")
        PolicyNotes.shared.add(manager, "its count: \(try context.value(forKey: "items.@count", of: shelf))")
        PolicyNotes.shared.add(
            manager, "first item's writer: \(try context.value(forKey: "writer.name", of: items[0]))")
        PolicyNotes.shared.add(
            manager, "Dune's shelves: \(try context.objects(forKey: "shelves", of: try books("Dune")[0]).count)")
        // The last item to the front, a book of the back shelf added, the old first removed.
        try context.setValue(Array([items[2]] + items.dropLast()), forKey: "items", of: shelf)
        try context.add(try books("Dune"), toRelationship: "items", of: shelf)
        try context.remove([items[0]], fromRelationship: "items", of: shelf)
        PolicyNotes.shared.add(
            manager, "front shelf now: \(try context.objects(forKey: "items", of: shelf).map(\.id.primaryKey))")
    }
}

/// Reads the source store through its context: predicates, sorting, limits, sub-entities.
final class SourceQueryPolicy: EntityMigrationPolicy {
    required init() {}

    override func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {
        let context = manager.sourceContext
        var request = FetchRequest(entityName: "Publication")
        PolicyNotes.shared.add(manager, "publications: \(try context.count(for: request))")
        request.includesSubentities = false
        PolicyNotes.shared.add(manager, "publications alone: \(try context.count(for: request))")
        request = FetchRequest(entityName: "Book", predicate: ObjectPredicate(format: "year >= %d", 1990))
        request.sortDescriptors = [
            KeySortDescriptor(key: "author.name"), KeySortDescriptor(key: "year", ascending: false),
        ]
        let books = try context.fetch(request)
        PolicyNotes.shared.add(
            manager, "since 1990: \(try books.map { try $0.text("title") ?? "" }.joined(separator: ", "))")
        request.fetchLimit = 1
        PolicyNotes.shared.add(
            manager, "limited: \(try context.fetch(request).count), counted \(try context.count(for: request))")
    }
}

/// Deletes, in its `end`, the books written before 1970 (their reviews cascade), and the
/// author given in the mapping's user info.
final class PruningPolicy: EntityMigrationPolicy {
    required init() {}

    override func end(_ mapping: EntityMapping, manager: MigrationManager) throws {
        let context = manager.destinationContext
        var request = FetchRequest(entityName: "Book")
        request.predicate = ObjectPredicate(format: "year < 1970")
        let old = try context.fetch(request)
        try context.delete(old)
        let made = try manager.destinationInstances(
            forEntityMappingName: "BookToBook", sourceIDs: [ObjectID(entity: "Book", primaryKey: 1)])
        PolicyNotes.shared.add(manager, "deleted \(old.count); book 1 now makes \(made.count)")
        if let name = mapping.userInfoDictionary["deleteAuthor"] {
            let authors = try context.fetch(
                FetchRequest(entityName: "Author", predicate: ObjectPredicate(format: "name == %@", name)))
            try context.delete(authors)
        }
    }
}

/// Finds objects again by identity in its `end`, as ports of `NSPredicate(format: "SELF == %@",
/// object)` do, in both contexts and in every form NSPredicate allows.
final class SelfLookupPolicy: EntityMigrationPolicy {
    required init() {}

    override func end(_ mapping: EntityMapping, manager: MigrationManager) throws {
        let destination = manager.destinationContext
        func made(from key: Int64) throws -> DestinationObject {
            let made = try manager.destinationInstances(
                forEntityMappingName: "BookToBook", sourceIDs: [ObjectID(entity: "Book", primaryKey: key)])
            guard let first = made.first else { throw MoltError(.migration, "Book/\(key) made nothing") }
            return first
        }
        let dune = try made(from: 1)
        let provenance = try made(from: 3)
        func titles(_ format: String, _ arguments: any ExpressionValueConvertible...) throws -> String {
            try titles(ObjectPredicate(format: format, argumentArray: arguments))
        }
        func titles(_ predicate: ObjectPredicate) throws -> String {
            let format = predicate.format
            var request = FetchRequest(entityName: "Book", predicate: predicate)
            request.sortDescriptors = [KeySortDescriptor(key: "title")]
            let found = try destination.fetch(request)
            let counted = try destination.count(for: request)
            let names = try found.map { object -> String in
                guard case .string(let title) = try destination.value(forKey: "title", of: object) else { return "?" }
                return title
            }
            return "\(format): \(names.joined(separator: ", ")) (\(counted))"
        }
        let sourceDune = try manager.sourceObject(ObjectID(entity: "Book", primaryKey: 1))
        for line in [
            try titles("SELF == %@", dune),
            try titles("%@ == SELF", dune),
            try titles("self != %@ AND year > 2000", dune),
            try titles("SELF IN %@", [dune, provenance]),
            try titles("SELF IN %@ OR title == 'Quoted'", [provenance]),
            try titles("SELF == %@", sourceDune),  // an object of the other store is no destination object
            try titles("title == 'Dune' AND SELF.year == 1965"),
            try titles("SELF == %@", ObjectReference(.destination, provenance.id)),
        ] {
            PolicyNotes.shared.add(manager, line)
        }
        // Compound predicates built in code, as NSCompoundPredicate builds them.
        let recent = ObjectPredicate(format: "year > %@", 2000)
        for predicate in [
            ObjectPredicate(andPredicateWithSubpredicates: [
                ObjectPredicate(format: "SELF IN %@", [dune, provenance]), recent,
            ]),
            ObjectPredicate(orPredicateWithSubpredicates: [
                ObjectPredicate(format: "title == %@", "Dune"), ObjectPredicate(format: "%K == %@", "title", "Quoted"),
            ]),
            ObjectPredicate(notPredicateWithSubpredicate: ObjectPredicate(format: "year < 2000")),
            ObjectPredicate(andPredicateWithSubpredicates: []),
            ObjectPredicate(orPredicateWithSubpredicates: []),
            ObjectPredicate(andPredicateWithSubpredicates: [
                ObjectPredicate(format: "year > $year").withSubstitutionVariables(["year": 1990]),
                ObjectPredicate(format: "title BEGINSWITH $letter").withSubstitutionVariables(["letter": "A"]),
            ]),
        ] {
            PolicyNotes.shared.add(manager, try titles(predicate))
        }
        let clash = ObjectPredicate(andPredicateWithSubpredicates: [
            ObjectPredicate(format: "year > $year").withSubstitutionVariables(["year": 1990]),
            ObjectPredicate(format: "year < $year").withSubstitutionVariables(["year": 2015]),
        ])
        do {
            _ = try titles(clash)
        } catch let error as MoltError {
            PolicyNotes.shared.add(manager, error.message)
        }
        let again = try manager.sourceContext.fetch(
            FetchRequest(entityName: "Publication", predicate: ObjectPredicate(format: "SELF == %@", sourceDune)))
        PolicyNotes.shared.add(manager, "source: \(try again.map { try $0.text("title") ?? "" })")
    }
}

/// Uses the manager's userInfo with the wrong type.
final class ConfusedUserInfoPolicy: EntityMigrationPolicy {
    required init() {}

    override func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {
        manager.userInfo["table"] = 3
        try manager.userInfo.modify("table", default: [String: Int]()) { $0["x"] = 1 }
    }
}

@Suite("Policies query, change and delete objects as Core Data policies do")
struct PolicyQueryTests {
    let folder = TemporaryDirectory()

    static let v1 = """
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
        </entity>
        <entity name="Publication" representedClassName="Publication" syncable="YES">
            <attribute name="title" attributeType="String"/>
            <attribute name="year" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
        </entity>
        <entity name="Book" representedClassName="Book" parentEntity="Publication" syncable="YES">
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
        </entity>
        <entity name="Magazine" representedClassName="Magazine" parentEntity="Publication" syncable="YES"/>
        """

    static let v2 = """
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Deny" destinationEntity="Book" inverseName="writer" inverseEntity="Book"/>
        </entity>
        <entity name="Book" representedClassName="Book" syncable="YES">
            <attribute name="title" attributeType="String"/>
            <attribute name="year" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
            <relationship name="reviews" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Review" inverseName="book" inverseEntity="Review"/>
            <relationship name="shelves" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Shelf" inverseName="items" inverseEntity="Shelf"/>
            <relationship name="writer" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
        </entity>
        <entity name="Review" representedClassName="Review" syncable="YES">
            <attribute name="stars" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
            <relationship name="book" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="reviews" inverseEntity="Book"/>
        </entity>
        <entity name="Shelf" representedClassName="Shelf" syncable="YES">
            <attribute name="label" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="shelves" inverseEntity="Book"/>
        </entity>
        """

    static let seed = Data(
        """
        {"entities": {
          "Author": [{"@id": "Author/1", "name": "Ann Leckie"}, {"@id": "Author/2", "name": "Frank Herbert"},
                     {"@id": "Author/3", "name": "O'Brien\\" OR 1=1 --"}],
          "Book": [
            {"@id": "Book/1", "title": "Dune", "year": 1965, "author": "Author/2"},
            {"@id": "Book/2", "title": "Ancillary Justice", "year": 2013, "author": "Author/1"},
            {"@id": "Book/3", "title": "Provenance", "year": 2017, "author": "Author/1"},
            {"@id": "Book/4", "title": "Anonymous", "year": 1995},
            {"@id": "Book/5", "title": "Quoted", "year": 1999, "author": "Author/3"}
          ],
          "Magazine": [{"@id": "Magazine/6", "title": "Locus", "year": 2020}]
        }, "format": "molt-objects", "version": 1}
        """.utf8)

    func setUp() throws -> (store: URL, v1: ObjectModel, v2: ObjectModel, bundle: URL) {
        CompiledPolicies.register([
            WriterLookupPolicy.self, ShelfReadingPolicy.self, SourceQueryPolicy.self, PruningPolicy.self,
            ConfusedUserInfoPolicy.self, SelfLookupPolicy.self,
        ])
        let bundle = try ModelXML.writeBundle(
            "Library", versions: [("Library", Self.v1), ("Library 2", Self.v2)], current: "Library 2", in: folder)
        let models = try ModelBundle(url: bundle)
        let v1 = try models.model(named: "Library")
        let store = try MigrationFixtures.store("Library.sqlite", in: folder, model: v1, seed: Self.seed)
        return (store, v1, try models.model(named: "Library 2"), bundle)
    }

    /// Authors, then books (with `bookPolicy`), then shelves and reviews made by `end`-free
    /// add mappings; `extra` goes inside the book mapping.
    static func mapping(bookPolicy: String?, authorPolicy: String? = nil, extra: String = "") throws -> MappingModel {
        try MigrationFixtures.mapping(
            text: """
                <mapping-model format="1" source-model="Library" destination-model="Library 2">
                    <entity-mapping name="AuthorToAuthor" type="transform" source="Author" destination="Author"\(authorPolicy.map { " policy=\"\($0)\"" } ?? "")>
                        <relationship name="books" value="nil"/>
                    </entity-mapping>
                    <entity-mapping name="BookToBook" type="transform" source="Book" destination="Book"\(bookPolicy.map { " policy=\"\($0)\"" } ?? "")>
                        \(extra)
                    </entity-mapping>
                    <entity-mapping name="MagazineToNothing" type="remove" source="Magazine"/>
                </mapping-model>
                """)
    }

    func open(_ store: URL, _ bundle: URL) throws -> ObjectStore {
        try ObjectStore.open(at: store, models: .bundle(try ModelBundle(url: bundle)))
    }

    @Test(
        "a policy fetches destination objects made earlier in the migration, with bound arguments, sorts, limits and counts"
    )
    func destinationFetches() throws {
        let (store, v1, v2, bundle) = try setUp()
        try HeavyweightMigration(
            store: store, source: v1, destination: v2, mapping: try Self.mapping(bookPolicy: "WriterLookupPolicy")
        ).run()
        #expect(
            PolicyNotes.shared.notes(folder) == [
                "Dune: 0 books before, 1 writer",
                "Ancillary Justice: 1 books before, 1 writer",
                "Provenance: 2 books before, 1 writer",
                "Anonymous: 3 books before, 0 writer",
                "Quoted: 4 books before, 1 writer",
                "by year, 2nd and 3rd: Ancillary Justice, Quoted",
                "by Ann: 2",
                "before 2000 with a writer: 2",
            ])
        let migrated = try open(store, bundle)
        let writers = try (1...5).map { key in
            try migrated.object(ObjectID(entity: "Book", primaryKey: Int64(key)))?.relationships["writer"]?.objectIDs
        }
        #expect(
            writers == [
                [ObjectID(entity: "Author", primaryKey: 2)], [ObjectID(entity: "Author", primaryKey: 1)],
                [ObjectID(entity: "Author", primaryKey: 1)], [], [ObjectID(entity: "Author", primaryKey: 3)],
            ])
        let ann = try #require(try migrated.object(ObjectID(entity: "Author", primaryKey: 1)))
        #expect(ann.relationships["books"]?.objectIDs.count == 2, "the inverse followed")
    }

    @Test("predicate arguments are values, never text: quotes and SQL in a value are only compared")
    func argumentsAreBound() throws {
        let (store, v1, _, _) = try setUp()
        let source = try ObjectStore(store: try SQLiteStore(at: store, readOnly: true), model: v1)
        let resolver = StoreObjectResolver(source: source)
        func titles(_ format: String, _ arguments: [ExpressionValue]) throws -> [String] {
            let parsed = try ExpressionParser().parse(format: format, arguments: arguments)
            let query = ObjectQuery(entity: "Author", predicate: parsed.expression, variables: parsed.variables)
            return try query.objects(in: source, resolver: resolver).compactMap {
                if case .string(let name)? = $0.attributes["name"] { return name }
                return nil
            }
        }
        #expect(try titles("name == %@", [.string("O'Brien\" OR 1=1 --")]) == ["O'Brien\" OR 1=1 --"])
        #expect(try titles("name == %@", [.string("x' OR 1=1 --")]).isEmpty)
        #expect(try titles("%K CONTAINS[c] %@", [.string("name"), .string("leckie")]) == ["Ann Leckie"])
        #expect(throws: SyntaxError.self) { try titles("%K == 1", [.string("name == name OR name")]) }
        #expect(throws: SyntaxError.self) { try titles("name == %@ AND name == %@", [.string("a")]) }
        #expect(throws: SyntaxError.self) { try titles("name == %@", [.string("a"), .string("b")]) }
        #expect(throws: SyntaxError.self) { try titles("name == %x", [.string("a")]) }
        let error = try #require(throws: SyntaxError.self) { try titles("%K == %@", [.integer(3), .string("a")]) }
        #expect("\(error)".contains("%K takes a key as a string"), "\(error)")
    }

    @Test("a policy reads to-one, to-many and ordered relationships and key paths, and changes them")
    func readsAndChangesRelationships() throws {
        let (store, v1, v2, bundle) = try setUp()
        let mapping = try Self.mapping(
            bookPolicy: "ShelfReadingPolicy",
            extra: """
                <relationship name="writer" value="FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'AuthorToAuthor', $source.author)"/>
                """)
        try HeavyweightMigration(store: store, source: v1, destination: v2, mapping: mapping).run()
        #expect(
            PolicyNotes.shared.notes(folder) == [
                "front shelf, in order: Provenance, Ancillary Justice, Anonymous",
                "its count: integer(3)",
                "first item's writer: string(\"Ann Leckie\")",
                "Dune's shelves: 1",
                "front shelf now: [4, 2, 1]",
            ])
        let migrated = try open(store, bundle)
        let shelves = try migrated.objects(of: "Shelf").nextBatch() ?? []
        let front = try #require(shelves.first { $0.attributes["label"] == .string("Front") })
        #expect(front.relationships["items"]?.objectIDs.map(\.primaryKey) == [4, 2, 1], "the order was kept")
        let dune = try #require(try migrated.object(ObjectID(entity: "Book", primaryKey: 1)))
        #expect(dune.relationships["shelves"]?.objectIDs.count == 2, "both sides of the many-to-many agree")
        let provenance = try #require(try migrated.object(ObjectID(entity: "Book", primaryKey: 3)))
        #expect(provenance.relationships["shelves"]?.objectIDs == [], "removed from both sides")
    }

    @Test("a policy reads the source store: predicates, sort keys through relationships, limits, sub-entities")
    func sourceFetches() throws {
        let (store, v1, v2, _) = try setUp()
        try HeavyweightMigration(
            store: store, source: v1, destination: v2, mapping: try Self.mapping(bookPolicy: "SourceQueryPolicy")
        ).run()
        #expect(
            PolicyNotes.shared.notes(folder) == [
                "publications: 6",
                "publications alone: 0",
                "since 1990: Anonymous, Provenance, Ancillary Justice, Quoted",
                "limited: 1, counted 1",
            ])
    }

    @Test("SELF in fetches of both contexts (==, != and IN objects, mirrored), and compound predicates built in code")
    func selfInPredicates() throws {
        let (store, v1, v2, _) = try setUp()
        try HeavyweightMigration(
            store: store, source: v1, destination: v2, mapping: try Self.mapping(bookPolicy: "SelfLookupPolicy")
        ).run()
        #expect(
            PolicyNotes.shared.notes(folder) == [
                "SELF == %@: Dune (1)",
                "%@ == SELF: Dune (1)",
                "self != %@ AND year > 2000: Ancillary Justice, Provenance (2)",
                "SELF IN %@: Dune, Provenance (2)",
                "SELF IN %@ OR title == 'Quoted': Provenance, Quoted (2)",
                "SELF == %@:  (0)",
                "title == 'Dune' AND SELF.year == 1965: Dune (1)",
                "SELF == %@: Provenance (1)",
                "(SELF IN %@) AND (year > %@): Provenance (1)",
                "(title == %@) OR (%K == %@): Dune, Quoted (2)",
                "NOT (year < 2000): Ancillary Justice, Provenance (2)",
                "TRUEPREDICATE: Ancillary Justice, Anonymous, Dune, Provenance, Quoted (5)",
                "FALSEPREDICATE:  (0)",
                "(year > $year) AND (title BEGINSWITH $letter): Ancillary Justice, Anonymous (2)",
                "the compound predicate \"(year > $year) AND (year < $year)\" gives $year two different values",
                #"source: ["Dune"]"#,
            ])
    }

    @Test("deleting in a hook applies delete rules and forgets the objects' associations")
    func deletesInHooks() throws {
        let (store, v1, v2, bundle) = try setUp()
        let report = try HeavyweightMigration(
            store: store, source: v1, destination: v2, mapping: try Self.mapping(bookPolicy: "PruningPolicy")
        ).run()
        #expect(PolicyNotes.shared.notes(folder) == ["deleted 1; book 1 now makes 0"])
        #expect(report.deletedObjects == 1)
        #expect(report.destinationCounts == ["Author": 3, "Book": 4, "Review": 0, "Shelf": 0])
        let migrated = try open(store, bundle)
        #expect(try migrated.object(ObjectID(entity: "Book", primaryKey: 1)) == nil)
        let frank = try #require(try migrated.object(ObjectID(entity: "Author", primaryKey: 2)))
        #expect(frank.relationships["books"]?.objectIDs == [], "nullified on the other side")
    }

    @Test("a Deny rule stops the migration with 1600, naming the object and relationship; the store is untouched")
    func denyStops() throws {
        let (store, v1, v2, _) = try setUp()
        let before = try Data(contentsOf: store)
        let files = try MigrationFixtures.files(folder)
        let mapping = try Self.mapping(
            bookPolicy: "PruningPolicy",
            extra: """
                <relationship name="writer" value="FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'AuthorToAuthor', $source.author)"/>
                <user-info key="deleteAuthor" value="Ann Leckie"/>
                """)
        let error = try #require(throws: MoltError.self) {
            try HeavyweightMigration(store: store, source: v1, destination: v2, mapping: mapping).run()
        }
        #expect(error.code == .validationRelationshipDeniedDelete)
        #expect(error.message.contains("Author/1 cannot be deleted"), "\(error.message)")
        #expect(error.property == "books")
        #expect(StoreBytes.same(try Data(contentsOf: store), before))
        #expect(try MigrationFixtures.files(folder) == files)
    }

    @Test("the manager's userInfo refuses a value of another type, naming both")
    func userInfoTypes() throws {
        let (store, v1, v2, _) = try setUp()
        let error = try #require(throws: MoltError.self) {
            try HeavyweightMigration(
                store: store, source: v1, destination: v2,
                mapping: try Self.mapping(bookPolicy: nil, authorPolicy: "ConfusedUserInfoPolicy")
            ).run()
        }
        #expect(error.code == .entityMigrationPolicy)
        #expect(error.message.contains("holds a Int under \"table\""), "\(error.message)")
    }
}
