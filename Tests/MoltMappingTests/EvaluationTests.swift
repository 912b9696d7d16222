import Foundation
import MoltMapping
import MoltStore
import Testing

/// Objects held in memory for evaluation tests: key → value per object.
final class MemoryResolver: ObjectResolver {
    var objects: [ObjectID: [String: ExpressionValue]] = [:]

    func value(of key: String, on object: ObjectReference) throws -> ExpressionValue {
        guard let values = objects[object.id], let value = values[key] else {
            throw EvaluationError("no key \(key)", offset: 0)
        }
        return value
    }
}

@Suite("Evaluating expressions")
struct EvaluationTests {
    let resolver = MemoryResolver()
    let post = ObjectID(entity: "Post", primaryKey: 1)

    init() {
        let tag1 = ObjectID(entity: "Tag", primaryKey: 1)
        let tag2 = ObjectID(entity: "Tag", primaryKey: 2)
        let author = ObjectID(entity: "Author", primaryKey: 1)
        resolver.objects = [
            post: [
                "title": .string("Hello World"), "views": .integer(120), "score": .double(2.5), "draft": .bool(false),
                "price": .decimal(Decimal(string: "9.99")!),
                "published": .date(Date(timeIntervalSinceReferenceDate: 1000)),
                "summary": .null, "author": .object(ObjectReference(.source, author)),
                "tags": .collection([.object(ObjectReference(.source, tag1)), .object(ObjectReference(.source, tag2))]),
            ],
            author: ["name": .string("Ann Leckie"), "city": .null],
            tag1: ["name": .string("swift"), "weight": .integer(3)],
            tag2: ["name": .string("Databases"), "weight": .integer(5)],
        ]
    }

    func evaluate(_ text: String, variables: [String: ExpressionValue] = [:]) throws -> ExpressionValue {
        var all = variables
        all["source"] = .object(ObjectReference(.source, post))
        let context = EvaluationContext(variables: all, resolver: resolver)
        context.now = { Date(timeIntervalSinceReferenceDate: 5000) }
        return try ExpressionCompiler.compile(text).evaluate(context)
    }

    func test(_ text: String, variables: [String: ExpressionValue] = [:]) throws -> Bool {
        try evaluate("TERNARY(\(text), TRUE, FALSE)", variables: variables) == .bool(true)
    }

    @Test(
        "values",
        arguments: [
            ("$source.title", ExpressionValue.string("Hello World")), ("title", .string("Hello World")),
            ("$source.author.name", .string("Ann Leckie")), ("author.city", .null), ("summary.length", .null),
            ("tags.name", .collection([.string("swift"), .string("Databases")])), ("tags.@count", .integer(2)),
            ("tags.weight.@sum", .integer(8)), ("tags.weight.@avg", .double(4)), ("tags.weight.@max", .integer(5)),
            ("tags[0].name", .string("swift")), ("tags[LAST].name", .string("Databases")), ("tags[SIZE]", .integer(2)),
            ("views + 1", .integer(121)), ("views / 8", .double(15)), ("views * score", .double(300)),
            ("2 ** 10", .double(1024)), ("-views", .integer(-120)), ("price * 2", .decimal(Decimal(string: "19.98")!)),
            ("views - nil", .null), ("\"a\" + \"b\"", .string("ab")),
            ("published + 60", .date(Date(timeIntervalSinceReferenceDate: 1060))),
            ("published - published", .double(0)),
            ("uppercase(title)", .string("HELLO WORLD")), ("lowercase(title)", .string("hello world")),
            ("trim('  x  ')", .string("x")), ("concat(title, ' (', views, ')')", .string("Hello World (120)")),
            ("concat(summary, 'x')", .string("x")), ("join(tags.name, ', ')", .string("swift, Databases")),
            ("substring(title, 6)", .string("World")), ("substring(title, 0, 5)", .string("Hello")),
            ("substring(title, 99)", .string("")), ("length(title)", .integer(11)),
            ("replace(title, 'World', 'Molt')", .string("Hello Molt")), ("number('42')", .integer(42)),
            ("number('4.5')", .double(4.5)), ("integer(score)", .integer(2)), ("integer('-7.9')", .integer(-7)),
            ("decimal('0.10')", .decimal(Decimal(string: "0.10")!)), ("string(views)", .string("120")),
            ("string(draft)", .string("false")), ("string(published)", .string("2001-01-01T00:16:40Z")),
            ("date('2001-01-01T00:00:10Z')", .date(Date(timeIntervalSinceReferenceDate: 10))),
            ("CAST(10, 'NSDate')", .date(Date(timeIntervalSinceReferenceDate: 10))),
            ("now()", .date(Date(timeIntervalSinceReferenceDate: 5000))),
            (
                "uuid('E621E1F8-C36C-495A-93FC-0C247A3E6E5F')",
                .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
            ),
            ("abs(-3)", .integer(3)), ("floor(2.7)", .double(2)), ("ceiling(2.1)", .double(3)),
            ("round(2.5)", .double(3)),
            ("min(3, 1, 2)", .integer(1)), ("max(tags.weight)", .integer(5)), ("sum(1, 2.5)", .double(3.5)),
            ("average(tags.weight)", .double(4)), ("count(tags)", .integer(2)),
            ("coalesce(summary, author.city, 'none')", .string("none")),
            ("TERNARY(views > 100, 'popular', 'quiet')", .string("popular")),
            ("{1, 'a'}", .collection([.integer(1), .string("a")])),
            ("$batch", .string("5000")), ("views > 100", .bool(true)),
        ] as [(String, ExpressionValue)])
    func values(text: String, expected: ExpressionValue) throws {
        #expect(try evaluate(text, variables: ["batch": .string("5000")]) == expected)
    }

    @Test(
        "conditions",
        arguments: [
            ("views == 120", true), ("views = 120.0", true), ("views != 120", false), ("views > '100'", true),
            ("summary == nil", true), ("summary != nil", false), ("summary != 'x'", true), ("summary < 5", false),
            ("NOT (summary < 5)", true), ("title == 'hello world'", false), ("title ==[c] 'hello world'", true),
            ("title BEGINSWITH 'Hello'", true), ("title BEGINSWITH[c] 'hello'", true), ("title ENDSWITH 'World'", true),
            ("title CONTAINS 'lo W'", true), ("title CONTAINS[c] 'LO W'", true), ("title LIKE 'H*o W?rld'", true),
            ("title LIKE 'H*x'", false), ("title MATCHES 'Hel+o.*'", true), ("title MATCHES 'Hel'", false),
            ("'café' ==[d] 'cafe'", true), ("'CAFÉ' ==[cd] 'cafe'", true), ("views IN {1, 120}", true),
            ("views IN {1, 2}", false), ("'Wor' IN title", true), ("views BETWEEN {100, 120}", true),
            ("views BETWEEN {121, 200}", false), ("published > '2001-01-01T00:00:00Z'", true),
            ("published < 999", false),
            ("ANY tags.name == 'swift'", true), ("ANY tags.name ==[c] 'databases'", true),
            ("ALL tags.weight > 2", true),
            ("ALL tags.weight > 3", false), ("NONE tags.name == 'go'", true), ("tags.name CONTAINS 'swift'", true),
            ("tags.@count == 2 AND views > 100", true), ("views < 0 OR draft == NO", true), ("TRUEPREDICATE", true),
            ("FALSEPREDICATE", false), ("NOT FALSEPREDICATE AND TRUEPREDICATE", true), ("draft == 0", true),
            ("price > 9.98", true), ("price == '9.99'", true), ("author.name BEGINSWITH 'Ann'", true),
            ("author == nil", false), ("summary BEGINSWITH 'x'", false), ("'é' > 'z'", true),
        ] as [(String, Bool)])
    func conditions(text: String, expected: Bool) throws {
        #expect(try test(text) == expected)
    }

    @Test(
        "evaluation errors name the column",
        arguments: [
            ("views + title", 0, "cannot apply + to an integer and a string (use concat() to join text)"),
            ("title > 5", 0, "cannot compare a string with an integer"),
            ("tags > 1", 0, "start the comparison with ANY"),
            ("views / 0", 0, "division by zero"), ("9223372036854775807 + 1", 0, "overflows"),
            ("$missing", 0, "unknown variable $missing"),
            ("title.length", 0, "cannot read the key \"length\" of a string"),
            ("tags[5]", 0, "outside a collection of 2"), ("uppercase(views)", 0, "needs text, not an integer"),
            ("number('x')", 0, "\"x\" is not a number"), ("date('yesterday')", 0, "not a date"),
            ("title MATCHES '['", 0, "not a valid regular expression"),
            (
                "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'M', tags)", 0,
                "only during a migration"
            ),
            ("FUNCTION(title, 'uppercaseString')", 0, "FUNCTION can call only"),
            ("TERNARY(title, 1, 2)", 8, "a condition must be true or false"),
        ] as [(String, Int, String)])
    func errors(text: String, offset: Int, message: String) {
        let error = #expect(throws: EvaluationError.self) {
            _ = try evaluate(text, variables: ["manager": .target(.manager)])
        }
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        #expect(error?.offset == offset, "\(String(describing: error))")
    }

    @Test("FUNCTION calls go to the dispatcher with the evaluated arguments")
    func dispatch() throws {
        final class Recorder: FunctionDispatcher {
            var calls: [(FunctionTarget, String, [ExpressionValue])] = []
            func call(
                _ target: FunctionTarget, selector: String, arguments: [ExpressionValue]
            ) throws -> ExpressionValue {
                calls.append((target, selector, arguments))
                return .string("slug")
            }
        }
        let recorder = Recorder()
        let context = EvaluationContext(
            variables: ["source": .object(ObjectReference(.source, post)), "entityPolicy": .target(.entityPolicy)],
            resolver: resolver, functions: recorder)
        let value = try ExpressionCompiler.compile("FUNCTION($entityPolicy, 'slugFrom:', $source.title)").evaluate(
            context)
        #expect(value == .string("slug"))
        #expect(recorder.calls.count == 1)
        #expect(recorder.calls.first?.1 == "slugFrom:")
        #expect(recorder.calls.first?.2 == [.string("Hello World")])
    }

    @Test("a compiled expression is reused across objects")
    func reuse() throws {
        let compiled = try ExpressionCompiler.compile("uppercase(name)")
        let context = EvaluationContext(resolver: resolver)
        var results: [ExpressionValue] = []
        for key in [1, 2] as [Int64] {
            context.object = .object(ObjectReference(.source, ObjectID(entity: "Tag", primaryKey: key)))
            results.append(try compiled.evaluate(context))
        }
        #expect(results == [.string("SWIFT"), .string("DATABASES")])
    }
}
