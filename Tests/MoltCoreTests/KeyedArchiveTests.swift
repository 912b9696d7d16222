import Foundation
import MoltCore
import Testing

@Suite("Keyed archives")
struct KeyedArchiveTests {
    /// The shape Xcode archives `$source.status` in: a key-path expression whose operand is a
    /// variable expression and whose arguments are an NSMutableArray of a key-path specifier.
    static func expressionArchive() -> PropertyList {
        .dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
            "$top": .dictionary(["root": .uid(1)]),
            "$objects": .array([
                .string("$null"),
                .dictionary([
                    "$class": .uid(11), "NSArguments": .uid(6), "NSExpressionType": .integer(4),
                    "NSOperand": .uid(3), "NSSelectorName": .uid(2),
                ]),
                .string("valueForKeyPath:"),
                .dictionary(["$class": .uid(5), "NSExpressionType": .integer(2), "NSVariable": .uid(4)]),
                .string("source"),
                .dictionary([
                    "$classname": .string("NSVariableExpression"),
                    "$classes": .array([.string("NSVariableExpression"), .string("NSExpression"), .string("NSObject")]),
                ]),
                .dictionary(["$class": .uid(10), "NS.objects": .array([.uid(7), .uid(0)])]),
                .dictionary(["$class": .uid(9), "NSExpressionType": .integer(10), "NSKeyPath": .uid(8)]),
                .string("status"),
                .dictionary(["$classname": .string("NSKeyPathSpecifierExpression")]),
                .dictionary([
                    "$classname": .string("NSMutableArray"),
                    "$classes": .array([.string("NSMutableArray"), .string("NSArray"), .string("NSObject")]),
                ]),
                .dictionary([
                    "$classname": .string("NSKeyPathExpression"),
                    "$classes": .array([
                        .string("NSKeyPathExpression"), .string("NSFunctionExpression"), .string("NSExpression"),
                    ]),
                ]),
            ]),
        ])
    }

    @Test("follows references from the root through objects, arrays and inline values")
    func walksAnArchive() throws {
        let data = BinaryPropertyListWriter().write(Self.expressionArchive())
        let archive = try KeyedArchive(data: data, name: "test archive")
        let root = try archive.root()
        #expect(root.className == "NSKeyPathExpression")
        #expect(root.isKind(of: "NSFunctionExpression"))
        #expect(!root.isKind(of: "NSVariableExpression"))
        #expect(try root.integer("NSExpressionType") == 4)
        #expect(try root.string("NSSelectorName") == "valueForKeyPath:")
        let operand = try #require(try root.object("NSOperand"))
        #expect(operand.className == "NSVariableExpression")
        #expect(try operand.string("NSVariable") == "source")
        let arguments = try #require(try root.object("NSArguments"))
        let elements = try arguments.elements()
        #expect(elements.count == 2)
        guard case .object(let specifier)? = elements[0] else {
            Issue.record("the first argument is not an object")
            return
        }
        #expect(specifier.className == "NSKeyPathSpecifierExpression")
        #expect(specifier.classes == ["NSKeyPathSpecifierExpression"])
        #expect(try specifier.string("NSKeyPath") == "status")
        #expect(elements[1] == nil)
        #expect(try root.object("NSMissing") == nil)
    }

    @Test("reads dictionaries with NSString keys")
    func readsDictionaries() throws {
        let plist: PropertyList = .dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$top": .dictionary(["root": .uid(1)]),
            "$objects": .array([
                .string("$null"),
                .dictionary([
                    "$class": .uid(2), "NS.keys": .array([.uid(3), .uid(5)]),
                    "NS.objects": .array([.uid(4), .integer(7)]),
                ]),
                .dictionary(["$classname": .string("NSDictionary")]),
                .string("first"),
                .string("one"),
                .dictionary(["$class": .uid(6), "NS.string": .string("second")]),
                .dictionary([
                    "$classname": .string("NSMutableString"),
                    "$classes": .array([.string("NSMutableString"), .string("NSString")]),
                ]),
            ]),
        ])
        let entries = try KeyedArchive(plist, name: "d").root().entries()
        #expect(entries.map(\.key) == ["first", "second"])
        guard case .plain(.string("one"))? = entries[0].value, case .plain(.integer(7))? = entries[1].value else {
            Issue.record("unexpected values \(entries)")
            return
        }
    }

    @Test(
        "a damaged archive is a clear error naming it and the object",
        arguments: [
            (PropertyList.string("x"), "it is a string, not a keyed archive"),
            (.dictionary(["$top": .dictionary([:])]), "it has no $objects array"),
            (.dictionary(["$objects": .array([.string("$null")])]), "it has no $top dictionary"),
            (
                .dictionary([
                    "$archiver": .string("Other"), "$objects": .array([.string("$null")]), "$top": .dictionary([:]),
                ]), "its $archiver is"
            ),
            (
                .dictionary(["$objects": .array([.string("$null")]), "$top": .dictionary(["root": .uid(9)])]),
                "$top.root refers to object 9 of 1"
            ),
            (
                .dictionary(["$objects": .array([.string("$null")]), "$top": .dictionary(["root": .uid(0)])]),
                "$top.root is nil"
            ),
            (
                .dictionary([
                    "$objects": .array([.string("$null"), .dictionary(["$class": .uid(5)])]),
                    "$top": .dictionary(["root": .uid(1)]),
                ]), "object 1 has no readable $class"
            ),
            (
                .dictionary([
                    "$objects": .array([.string("$null"), .string("text")]), "$top": .dictionary(["root": .uid(1)]),
                ]), "$top.root is a string, not an archived object"
            ),
        ])
    func damagedArchives(plist: PropertyList, expected: String) {
        do {
            _ = try KeyedArchive(plist, name: "the test blob").root()
            Issue.record("no error for \(plist)")
        } catch let error as MoltError {
            #expect(error.code == .propertyListReadCorrupt)
            #expect(error.message.hasPrefix("the test blob is not a readable keyed archive: "))
            #expect(error.message.contains(expected), "\(error.message)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("a reference out of range inside an object names the field")
    func badFieldReference() throws {
        let plist: PropertyList = .dictionary([
            "$objects": .array([
                .string("$null"), .dictionary(["$class": .uid(2), "NSOperand": .uid(40)]),
                .dictionary(["$classname": .string("NSExpression")]),
            ]),
            "$top": .dictionary(["root": .uid(1)]),
        ])
        let root = try KeyedArchive(plist, name: "blob").root()
        #expect(throws: MoltError.self) { try root.object("NSOperand") }
        do {
            _ = try root.object("NSOperand")
        } catch let error as MoltError {
            #expect(error.message.contains("NSOperand of object 1 (NSExpression) refers to object 40 of 3"))
        }
        #expect(throws: MoltError.self) { try root.elements() }
    }
}
