internal import Foundation
internal import MoltCore

/// Turns expressions that Xcode stored with `NSKeyedArchiver` (a property mapping's
/// `valueexpressiondata`, the parts of a source fetch) into Molt's ``MappingExpression``.
///
/// Molt never instantiates archived classes: it reads each object's class name and fields and
/// builds the equivalent expression.
///
/// | archived class | fields | Molt |
/// |---|---|---|
/// | `NSConstantValueExpression` | `NSConstantValue`: a string, number, boolean, `NSDate`, `NSNull`, an array of these, or nil | `"text"`, `42`, `TRUE`, `date(736000000)`, `nil`, `{…}` |
/// | `NSVariableExpression` | `NSVariable` | `$name` |
/// | `NSKeyPathSpecifierExpression` | `NSKeyPath` | `a.b` |
/// | `NSKeyPathExpression`, `NSFunctionExpression` with `valueForKeyPath:` | `NSOperand`, `NSSelectorName`, `NSArguments` | `$source.a.b` (`a.b` when the operand is `SELF`) |
/// | `NSFunctionExpression` on an operand | the same | `FUNCTION($manager, "selector:", …)` |
/// | `NSFunctionExpression`, a built-in function (no operand) | the same | `uppercase(x)`, `x + y`, `now()`… |
/// | `NSAggregateExpression` | `NSCollection` | `{a, b}` |
/// | `NSTernaryExpression` | `NSPredicate`, `NSTrueExpression`, `NSFalseExpression` | `TERNARY(…)` |
/// | `NSTruePredicate`, `NSFalsePredicate`, `NSCompoundPredicate`, `NSComparisonPredicate` | see ``predicate(_:depth:)`` | conditions |
///
/// Real Xcode files were seen to hold the first four rows (key paths on `$source`, and
/// constants); the other classes are read by the field names Foundation archives them with,
/// and have not been checked against a file Xcode wrote.
///
/// What Molt does not understand is refused with an error naming the file, line, entity
/// mapping and property, never replaced by a default: another archived class, a field of a
/// known class that Molt does not read (it might change the meaning), a function Molt has no
/// equivalent for. Nesting deeper than ``maximumDepth`` or more than ``maximumParts`` objects
/// (shared references in a hostile archive could otherwise multiply) are refused too.
///
/// The decoded tree is printed in Molt's syntax and parsed back, so the expression returned is
/// exactly what a Molt mapping file with that text holds; one that would not read back is
/// refused.
struct ArchivedExpressionDecoder {
    /// The deepest nesting of archived expressions accepted.
    static let maximumDepth = 64
    /// The most archived objects one expression may be made of.
    static let maximumParts = 10_000

    let place: ArchivePlace
    /// How many objects have been decoded so far.
    private var parts = 0

    init(place: ArchivePlace) {
        self.place = place
    }

    /// The expression archived in `data` (its `root`), in canonical form.
    mutating func expression(from data: Data) throws -> MappingExpression {
        try place.locating {
            let root = try place.archive(data).root()
            return try canonical(try expression(root, depth: 0))
        }
    }

    /// `expression` as Molt's parser reads its printed text.
    func canonical(_ expression: MappingExpression) throws -> MappingExpression {
        var result = expression
        // A bare key path named "default" would read as the word `default` (inferred).
        if case .keyPath(nil, let components) = result.kind, components == ["default"] {
            result = MappingExpression(.keyPath(base: MappingExpression(.variable("source")), components: components))
        }
        let text = result.description
        do {
            return try ExpressionParser().parse(text)
        } catch {
            throw place.error(
                "reads as \(text), which Molt's expression language cannot read back (\(error.message))")
        }
    }

    // MARK: Expressions

    /// The expression an archived `NSExpression` (or `NSPredicate`) object stands for.
    mutating func expression(_ object: ArchivedObject, depth: Int) throws -> MappingExpression {
        try count(depth)
        switch object.className {
        case "NSConstantValueExpression":
            try expect(object, fields: ["NSConstantValue"])
            return try constant(object.value("NSConstantValue"))
        case "NSVariableExpression":
            try expect(object, fields: ["NSVariable"])
            guard let name = try object.string("NSVariable"), !name.isEmpty else {
                throw place.error("contains a variable expression without a name")
            }
            return MappingExpression(.variable(name))
        case "NSKeyPathSpecifierExpression":
            try expect(object, fields: ["NSKeyPath"])
            return MappingExpression(.keyPath(base: nil, components: try keyPath(object.string("NSKeyPath"))))
        case "NSKeyPathExpression", "NSFunctionExpression":
            try expect(object, fields: ["NSOperand", "NSSelectorName", "NSArguments"])
            return try function(object, depth: depth)
        case "NSAggregateExpression":
            try expect(object, fields: ["NSCollection"])
            guard let collection = try object.object("NSCollection") else {
                throw place.error("contains an aggregate expression without a collection")
            }
            var items: [MappingExpression] = []
            for element in try collection.elements() {
                items.append(try expression(required(element, "an element of an aggregate"), depth: depth + 1))
            }
            return MappingExpression(.aggregate(items))
        case "NSTernaryExpression":
            try expect(object, fields: ["NSPredicate", "NSTrueExpression", "NSFalseExpression"])
            let condition = try predicate(required(object.object("NSPredicate"), "a condition"), depth: depth + 1)
            let then = try expression(required(object.object("NSTrueExpression"), "a true branch"), depth: depth + 1)
            let otherwise = try expression(
                required(object.object("NSFalseExpression"), "a false branch"), depth: depth + 1)
            return MappingExpression(.ternary(condition: condition, then: then, otherwise: otherwise))
        case "NSSelfExpression":
            throw place.error(
                "uses SELF outside a key path; write $source (or $destination) instead",
                recovery: "Change the expression in Xcode, or write the mapping in Molt's format.")
        default:
            if object.isKind(of: "NSPredicate") { return try predicate(object, depth: depth) }
            throw unsupported(object)
        }
    }

    /// A function expression: a key path (`valueForKeyPath:`), a call on an operand
    /// (`FUNCTION($manager, …)`) or one of NSExpression's built-in functions.
    mutating func function(_ object: ArchivedObject, depth: Int) throws -> MappingExpression {
        guard let selector = try object.string("NSSelectorName"), !selector.isEmpty else {
            throw place.error("contains a function expression without a selector")
        }
        var argumentObjects: [ArchivedObject] = []
        if let list = try object.object("NSArguments") {
            for element in try list.elements() {
                argumentObjects.append(try required(element, "an argument of \(selector)"))
            }
        }
        let operand = try object.object("NSOperand")
        if selector == "valueForKeyPath:" || selector == "valueForKey:" {
            guard argumentObjects.count == 1 else {
                throw place.error("calls \(selector) with \(argumentObjects.count) arguments instead of one")
            }
            let components = try keyPathArgument(argumentObjects[0], depth: depth + 1)
            guard let operand, operand.className != "NSSelfExpression" else {
                return MappingExpression(.keyPath(base: nil, components: components))
            }
            let base = try expression(operand, depth: depth + 1)
            if case .keyPath(let inner, let first) = base.kind {
                return MappingExpression(.keyPath(base: inner, components: first + components))
            }
            return MappingExpression(.keyPath(base: base, components: components))
        }
        var arguments: [MappingExpression] = []
        for argument in argumentObjects {
            arguments.append(try expression(argument, depth: depth + 1))
        }
        if let operand, operand.className != "NSConstantValueExpression" {
            let target = try expression(operand, depth: depth + 1)
            return MappingExpression(.call(target: target, selector: selector, arguments: arguments))
        }
        return try builtin(selector, arguments)
    }

    /// NSExpression's built-in functions that Molt has: arithmetic, `sum:`, `uppercase:`…
    func builtin(_ selector: String, _ arguments: [MappingExpression]) throws -> MappingExpression {
        let operators: [String: ArithmeticOperator] = [
            "add:to:": .add, "from:subtract:": .subtract, "multiply:by:": .multiply, "divide:by:": .divide,
            "raise:toPower:": .power,
        ]
        if let op = operators[selector] {
            guard arguments.count == 2 else {
                throw place.error("calls \(selector) with \(arguments.count) arguments instead of two")
            }
            return MappingExpression(.arithmetic(op, arguments[0], arguments[1]))
        }
        if selector == "castObject:toType:" {
            guard arguments.count == 2, case .constant(.string(let type)) = arguments[1].kind,
                let target = BuiltinFunction.castTarget(type)
            else {
                throw place.error(
                    "casts to a type Molt cannot convert to (NSDate, NSNumber, NSDecimalNumber, NSString)")
            }
            return MappingExpression(.function(name: target.rawValue, arguments: [arguments[0]]))
        }
        let functions: [String: BuiltinFunction] = [
            "sum:": .sum, "count:": .count, "min:": .min, "max:": .max, "average:": .average, "abs:": .abs,
            "floor:": .floor, "ceiling:": .ceiling, "trunc:": .integer, "uppercase:": .uppercase,
            "lowercase:": .lowercase, "now": .now,
        ]
        guard let function = functions[selector] else {
            throw place.error(
                "calls the function \(selector), which Molt has no equivalent for",
                recovery: "Write the value with Molt's functions (MappingModels/README.md) in a Molt mapping file.")
        }
        return MappingExpression(.function(name: function.rawValue, arguments: arguments))
    }

    // MARK: Key paths and constants

    /// The key path `valueForKeyPath:` is given: a key-path specifier, or a constant string.
    mutating func keyPathArgument(_ object: ArchivedObject, depth: Int) throws -> [String] {
        try count(depth)
        switch object.className {
        case "NSKeyPathSpecifierExpression":
            try expect(object, fields: ["NSKeyPath"])
            return try keyPath(object.string("NSKeyPath"))
        case "NSConstantValueExpression":
            try expect(object, fields: ["NSConstantValue"])
            guard let text = try object.plain("NSConstantValue")?.stringValue else {
                throw place.error("calls valueForKeyPath: with a constant that is not text")
            }
            return try keyPath(text)
        default:
            throw place.error("calls valueForKeyPath: with an \(object.className) instead of a key path")
        }
    }

    /// A key path's components ("author.name" → ["author", "name"]).
    func keyPath(_ text: String?) throws -> [String] {
        guard let text, !text.isEmpty else { throw place.error("contains an empty key path") }
        let components = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !components.contains(where: \.isEmpty) else {
            throw place.error("contains the key path \"\(text)\", which has an empty key")
        }
        return components
    }

    /// The constant an `NSConstantValue` holds.
    func constant(_ value: ArchivedValue?) throws -> MappingExpression {
        switch value {
        case nil:
            return MappingExpression(.constant(.null))
        case .plain(let plain):
            return try constant(plain)
        case .object(let object):
            if object.isKind(of: "NSString") {
                guard let text = try object.string("NS.string") else {
                    throw place.error("contains an \(object.className) constant without its text")
                }
                return MappingExpression(.constant(.string(text)))
            }
            if object.isKind(of: "NSDate") {
                switch try object.plain("NS.time") {
                case .real(let seconds)?: return try date(seconds)
                case .integer(let seconds)?: return try date(Double(seconds))
                default: throw place.error("contains an NSDate constant without its time")
                }
            }
            if object.isKind(of: "NSNull") { return MappingExpression(.constant(.null)) }
            if object.isKind(of: "NSArray") || object.isKind(of: "NSSet") || object.isKind(of: "NSOrderedSet") {
                let elements = try object.elements()
                guard elements.count <= Self.maximumParts else {
                    throw place.error("contains a constant collection of more than \(Self.maximumParts) values")
                }
                return MappingExpression(.aggregate(try elements.map { element in try constant(element) }))
            }
            throw place.error(
                "contains a constant of class \(object.className), which Molt cannot import",
                recovery: "Use text, a number, a boolean, a date or nil as the constant.")
        }
    }

    /// A constant archived inline.
    func constant(_ value: PropertyList) throws -> MappingExpression {
        switch value {
        case .string(let text): return MappingExpression(.constant(.string(text)))
        case .integer(let number): return MappingExpression(.constant(.integer(number)))
        case .bool(let flag): return MappingExpression(.constant(.bool(flag)))
        case .real(let number):
            guard number.isFinite else { throw place.error("contains the constant \(number), which is not a number") }
            return MappingExpression(.constant(.double(number)))
        case .date(let date): return try self.date(date.timeIntervalSinceReferenceDate)
        default: throw place.error("contains a constant that is \(value.kindName), which Molt cannot import")
        }
    }

    /// A date constant, as Molt writes one: `date(seconds since 2001-01-01)`.
    func date(_ seconds: Double) throws -> MappingExpression {
        guard seconds.isFinite else { throw place.error("contains a date constant that is not a time") }
        let number: Constant =
            seconds.rounded() == seconds && abs(seconds) < 9e15 ? .integer(Int64(seconds)) : .double(seconds)
        return MappingExpression(
            .function(name: BuiltinFunction.date.rawValue, arguments: [MappingExpression(.constant(number))]))
    }

    // MARK: Checks

    /// Counts one more object, refusing too deep or too large an expression.
    mutating func count(_ depth: Int) throws {
        parts += 1
        guard depth < Self.maximumDepth else {
            throw place.error("is nested more than \(Self.maximumDepth) levels deep")
        }
        guard parts <= Self.maximumParts else {
            throw place.error("is made of more than \(Self.maximumParts) archived objects")
        }
    }

    /// Refuses a field Molt does not read: it could change what the expression means.
    func expect(_ object: ArchivedObject, fields: Set<String>) throws {
        let known = fields.union(["$class", "NSExpressionType"])
        if let unknown = object.fields.keys.filter({ !known.contains($0) }).sorted().first {
            throw place.error(
                "contains an \(object.className) with a field \"\(unknown)\" that Molt does not read",
                recovery: "Molt reads only the fields it knows, so that nothing changes meaning on the way.")
        }
    }

    /// `element` as an archived object; nil or a plain value is an error.
    func required(_ element: ArchivedValue?, _ what: String) throws -> ArchivedObject {
        guard case .object(let object)? = element else { throw place.error("has \(what) that is not an expression") }
        return object
    }

    /// `object`, which must be there.
    func required(_ object: ArchivedObject?, _ what: String) throws -> ArchivedObject {
        guard let object else { throw place.error("has no \(what)") }
        return object
    }

    /// The error for a class Molt does not understand.
    func unsupported(_ object: ArchivedObject) -> MoltError {
        place.error(
            "contains an archived \(object.className), which Molt cannot import",
            recovery:
                "Rewrite the expression in Xcode with key paths, constants, FUNCTION and built-in functions, or write the mapping in Molt's format (MappingModels/README.md)."
        )
    }
}
