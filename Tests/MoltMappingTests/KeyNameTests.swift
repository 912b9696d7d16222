import Foundation
import MoltMapping
import MoltModel
import MoltTestSupport
import Testing

/// Names a model allows (any text but `self` in any case, which `check-model` refuses as Core
/// Data does, and the collection operators) written into a mapping and read back: a plain name
/// as it is, a keyword as `#word`, anything else as `#"name"`. What `molt infer` writes,
/// `check-mapping` accepts.
@Suite("Keys of any name in mapping expressions")
struct KeyNameTests {
    /// Seeded names from pieces that trouble a key path: brackets, spaces, dots, quotes,
    /// backslashes, `#`, `$`, `@`, `%`, leading digits, accents, lone combining marks, emoji
    /// and keywords.
    static func names(count: Int, seed: UInt64) -> [String] {
        let pieces = [
            "x", "y", "_", "]", "[", " ", ".", "#", "$", "@", "%", "'", "\"", "\\", "0", "9", "é", "\u{301}", "🙂",
            "AND", "size", "in", "TRUEPREDICATE", "-", "(", "{", "\n", "\t",
        ]
        var random = SplitMix(seed: seed)
        var names: [String] = ["x]y", "first name", "a.b", "#x", "9lives", "and", "nil", "description"]
        while names.count < count {
            let name = (0...random.next(below: 6)).map { _ in pieces[random.next(below: pieces.count)] }.joined()
            if CollectionOperator(rawValue: name) == nil, name.lowercased() != "self" { names.append(name) }
        }
        return names
    }

    @Test("every name prints as a key the parser reads back as that name")
    func printedKeysParse() throws {
        for name in Self.names(count: 2000, seed: 20_261_128) {
            let expression = MappingExpression(
                .keyPath(base: MappingExpression(.variable("source")), components: [name, "count"]))
            let text = expression.description
            let parsed = try ExpressionParser().parse(text)
            guard case .keyPath(_, let components) = parsed.kind else {
                Issue.record("\(name.debugDescription) printed as \(text), read back as \(parsed)")
                continue
            }
            #expect(components == [name, "count"], "\(name.debugDescription) printed as \(text)")
        }
    }

    @Test("a renamed attribute of any name: the inferred mapping is written, read back, and checks clean")
    func inferredRenames() throws {
        for name in Self.names(count: 120, seed: 7) where !name.isEmpty {
            let v1 = ObjectModel(
                entities: [Entity(name: "Book", attributes: [Attribute(name: name, type: .string, isOptional: true)])],
                name: "V1")
            let v2 = ObjectModel(
                entities: [
                    Entity(
                        name: "Book",
                        attributes: [
                            Attribute(name: "title", type: .string, isOptional: true, renamingIdentifier: name)
                        ])
                ], name: "V2")
            guard case .inferred(let mapping) = MappingInference.infer(from: v1, to: v2) else {
                Issue.record("\(name.debugDescription): not inferred")
                continue
            }
            let text = MappingWriter().text(of: mapping)
            let (read, problems) = MappingReader().read(Data(text.utf8), file: "inferred.xml")
            #expect(problems.isEmpty, "\(name.debugDescription): \(problems.map(\.description))\n\(text)")
            guard let read else {
                Issue.record("\(name.debugDescription): the written mapping does not read back\n\(text)")
                continue
            }
            let diagnostics = MappingChecker(knownPolicies: []).check(read, source: v1, destination: v2)
            #expect(diagnostics.errors.isEmpty, "\(name.debugDescription): \(diagnostics.errors.map(\.description))")
        }
    }

    @Test("a property called self, in any letter case, is refused by check-model; a method's name is warned about")
    func reservedNames() {
        for name in ["self", "SELF", "Self"] {
            let model = ObjectModel(
                entities: [Entity(name: "Book", attributes: [Attribute(name: name, type: .string, isOptional: true)])])
            let problems = ModelChecker().check(model)
            #expect(problems.contains { $0.severity == .error && $0.message.contains("cannot be called \"\(name)\"") })
        }
        let model = ObjectModel(
            entities: [
                Entity(name: "Book", attributes: [Attribute(name: "description", type: .string, isOptional: true)])
            ])
        let problems = ModelChecker().check(model)
        #expect(!problems.contains { $0.severity == .error })
        #expect(problems.contains { $0.severity == .warning && $0.message.contains("NSManagedObject") })
    }
}
