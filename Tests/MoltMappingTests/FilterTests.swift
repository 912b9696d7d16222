import Foundation
import MoltMapping
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// A store of 1,000 articles with varied values (nils, accents, cases) for filter tests.
/// The file is made once; each test opens its own connection (a connection is used by one
/// thread at a time, and tests run in parallel).
final class FilterFixture: @unchecked Sendable {
    let folder = TemporaryDirectory()
    let model: ObjectModel
    let url: URL

    /// A connection of the caller's own to the fixture store.
    var store: ObjectStore {
        get throws { try ObjectStore.open(at: url, models: .model(model)) }
    }

    init() throws {
        model = try Examples.model()
        folder.removeAtExit()
        url = folder.path("filters.sqlite")
        _ = try ObjectStore.create(at: url, model: model) { writer in
            let authors = try (0..<3).map { index in
                try writer.insert(
                    "Author", attributes: ["name": .string(["Ann", "Bob", "Åsa"][index]), "identifier": .uuid(UUID())])
            }
            let swift = try writer.insert("Tag", attributes: ["name": .string("swift")])
            for index in 0..<1000 {
                var attributes: [String: AttributeValue] = [
                    "views": .integer(Int64(index)), "priority": .integer(Int64(index % 100)),
                    "score": .double(Double(index) / 10), "isDraft": .bool(index % 2 == 0),
                    "price": .decimal(Decimal(index) / 100),
                    "title": .string(
                        index % 7 == 0 ? "café \(index)" : index % 11 == 0 ? "CAFE \(index)" : "Post \(index)"),
                ]
                if index % 5 != 0 { attributes["summary"] = .string("summary \(index % 3)") }
                if index % 4 != 0 {
                    attributes["publishedAt"] = .date(Date(timeIntervalSinceReferenceDate: Double(index) * 1000))
                }
                let article = try writer.insert("Article", attributes: attributes)
                if index % 3 == 0 { try writer.setToOne(article, "author", to: authors[index % 9 / 3]) }
                if index % 10 == 0 { try writer.setToMany(article, "tags", to: [swift]) }
            }
        }
    }

    /// The ids of the articles `filter` keeps, by evaluating it on every article in memory.
    func inMemory(_ filter: String, variables: [String: ExpressionValue]) throws -> [ObjectID] {
        let store = try self.store
        let compiled = try ExpressionCompiler.compile(filter)
        let resolver = StoreObjectResolver(source: store)
        var all = EvaluationContext.variables(userInfo: [:])
        all.merge(variables) { _, new in new }
        let context = EvaluationContext(variables: all, resolver: resolver)
        var kept: [ObjectID] = []
        let cursor = try store.objects(of: "Article")
        while let batch = try cursor.nextBatch() {
            for object in batch {
                resolver.remember(object)
                context.variables["source"] = .object(ObjectReference(.source, object.id))
                context.object = context.variables["source"]
                if try compiled.test(context) { kept.append(object.id) }
            }
        }
        return kept
    }
}

@Suite("Filters in SQL and in memory")
struct FilterTests {
    static let fixture = try! FilterFixture()
    static let variables: [String: ExpressionValue] = [
        "min": .string("900"), "word": .string("2"), "since": .string("2001-01-01T01:00:00Z"),
    ]

    @Test(
        "a filter keeps the same objects whether SQLite or Molt evaluates it",
        arguments: [
            ("views < 10", true), ("views >= 990 AND isDraft == YES", true), ("summary == nil", true),
            ("summary != nil", true), ("summary != 'summary 1'", true), ("NOT (publishedAt < 500000)", true),
            ("publishedAt > $since", true), ("publishedAt <= 3000", true), ("publishedAt == nil OR views == 3", true),
            ("title BEGINSWITH 'Post 9'", true), ("title CONTAINS[c] 'cafe'", true),
            ("title CONTAINS[cd] 'cafe'", true),
            ("title ==[cd] 'cafe 77'", true), ("title LIKE 'Post ?5'", true), ("title MATCHES 'Post [0-9]{2}'", true),
            ("title ENDSWITH 'é 7'", true), ("title LIKE[c] '*E 1*'", true), ("views IN {1, 5, 500}", true),
            ("views BETWEEN {100, 110}", true), ("priority == views", true), ("priority < views AND views < 120", true),
            ("'Post 5' == title", true), ("500 < views", true), ("author == nil", true),
            ("author != nil AND views < 50", true),
            ("views > $min AND summary CONTAINS $word", true), ("price > 5", true), ("price == '1.5'", true),
            ("(views < 5 OR views > 995) AND NOT isDraft == YES", true), ("TRUEPREDICATE", true),
            ("FALSEPREDICATE", true), ("views > number($min) - 100", true), ("views IN {}", true),
            ("isDraft == TRUE AND publishedAt > date('2001-01-01T00:10:00Z')", true),
            ("score > views / 20", false), ("ANY tags.name == 'swift'", false), ("author.name BEGINSWITH 'Å'", false),
            ("views < 100 AND ANY tags.name == 'swift'", false), ("priority == '7'", true),
            ("views < 50 OR author.name == 'Bob'", false), ("title IN {'Post 1', nil}", false),
        ] as [(String, Bool)])
    func sameResults(filter: String, fullySQL: Bool) throws {
        let fixture = Self.fixture
        let expression = try ExpressionParser().parse(filter)
        let objects = try FilteredObjects(
            store: try fixture.store, entity: "Article", filter: expression, variables: Self.variables)
        var viaPlan: [ObjectID] = []
        while let batch = try objects.nextBatch() { viaPlan += batch.map(\.id) }
        let expected = try fixture.inMemory(filter, variables: Self.variables)
        #expect(viaPlan == expected, "\(filter): plan \(objects.plan)")
        #expect(objects.plan.isFullySQL == fullySQL, "\(filter): plan \(objects.plan)")
        if fullySQL {
            #expect(objects.rowsRead == expected.count, "only the matching rows are read")
        }
    }

    @Test(
        "SELF compared with objects runs in SQL and keeps what evaluating it on each object keeps",
        arguments: [
            "SELF == $one", "$one == SELF", "SELF != $one AND views < 5", "SELF IN $some", "SELF IN $none",
            "SELF == $other", "SELF IN $mixed", "NOT (SELF IN $some) AND views < 12", "SELF == nil",
        ])
    func selfComparisons(filter: String) throws {
        let fixture = Self.fixture
        let article = { (key: Int64) in
            ExpressionValue.object(ObjectReference(.source, ObjectID(entity: "Article", primaryKey: key)))
        }
        let variables: [String: ExpressionValue] = [
            "one": article(7), "some": .collection([article(3), article(11), article(999)]), "none": .collection([]),
            // An object of the other store, and one of another entity, are never an Article of this store.
            "other": .object(ObjectReference(.destination, ObjectID(entity: "Article", primaryKey: 7))),
            "mixed": .collection([
                article(5), .object(ObjectReference(.source, ObjectID(entity: "Tag", primaryKey: 1))), .null,
            ]),
        ]
        let objects = try FilteredObjects(
            store: try fixture.store, entity: "Article", filter: try ExpressionParser().parse(filter),
            variables: variables)
        var viaPlan: [ObjectID] = []
        while let batch = try objects.nextBatch() { viaPlan += batch.map(\.id) }
        #expect(viaPlan == (try fixture.inMemory(filter, variables: variables)), "\(filter): plan \(objects.plan)")
        #expect(objects.plan.isFullySQL, "\(filter): plan \(objects.plan)")
    }

    @Test(
        "the longest chains the parser takes (2,000 operators) run in SQL, as the same rows as in memory",
        arguments: [
            (0..<2001).map { "views == \($0 * 7)" }.joined(separator: " OR "),
            (0..<2001).map { "views != \($0 * 3 + 1)" }.joined(separator: " AND "),
            (0..<600).map { "(views == \($0) OR priority == \($0 % 100) AND isDraft == YES)" }
                .joined(separator: " OR "),
        ])
    func longChains(filter: String) throws {
        let fixture = Self.fixture
        let expression = try ExpressionParser().parse(filter)
        let objects = try FilteredObjects(
            store: try fixture.store, entity: "Article", filter: expression, variables: [:])
        var viaPlan: [ObjectID] = []
        while let batch = try objects.nextBatch() { viaPlan += batch.map(\.id) }
        #expect(objects.plan.isFullySQL)
        #expect(viaPlan == (try fixture.inMemory(filter, variables: [:])))
        #expect(!viaPlan.isEmpty)
    }

    @Test("a filter keeping 1% of the rows reads 1% of them")
    func readsOnlyMatches() throws {
        let objects = try FilteredObjects(
            store: try Self.fixture.store, entity: "Article", filter: try ExpressionParser().parse("views < 10"))
        var kept = 0
        while let batch = try objects.nextBatch() { kept += batch.count }
        #expect(kept == 10)
        #expect(objects.rowsRead == 10)
        #expect(try Self.fixture.store.count(of: "Article") == 1000)
    }

    @Test("the translatable part of a mixed filter runs in SQL; the rest on the rows read")
    func mixed() throws {
        let objects = try FilteredObjects(
            store: try Self.fixture.store, entity: "Article",
            filter: try ExpressionParser().parse("views < 100 AND ANY tags.name == 'swift'"))
        var kept = 0
        while let batch = try objects.nextBatch() { kept += batch.count }
        #expect(kept == 10)
        #expect(objects.rowsRead == 100)
        #expect(objects.plan.condition?.sql.contains("\"ZVIEWS\"") == true)
        #expect(objects.plan.residual?.description == "ANY tags.name == \"swift\"")
    }
}
