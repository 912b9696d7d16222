import MoltCore
import MoltModel

/// Works out what expressions produce, before anything runs, and reports what cannot work:
/// unknown keys, variables and selectors, kinds of values that cannot be compared or combined.
/// Problems are reported through ``report`` with the character offset in the expression.
struct ExpressionTyper {
    struct Problem {
        var severity: Diagnostic.Severity
        var message: String
        var offset: Int
    }

    let source: ObjectModel
    let destination: ObjectModel
    let mappingModel: MappingModel
    let mapping: EntityMapping
    /// The known variables and their types.
    let variables: [String: ValueType]
    private(set) var problems: [Problem] = []

    /// The manager's functions Molt provides, with what they return.
    static let managerSelectors = [
        "destinationInstancesForEntityMappingNamed:sourceInstances:",
        "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
        "sourceInstancesForEntityMappingNamed:destinationInstances:",
    ]

    init(source: ObjectModel, destination: ObjectModel, mappingModel: MappingModel, mapping: EntityMapping) {
        self.source = source
        self.destination = destination
        self.mappingModel = mappingModel
        self.mapping = mapping
        var variables: [String: ValueType] = [:]
        for entry in mapping.userInfo { variables[entry.key] = .string }
        for target in FunctionTarget.allCases { variables[target.rawValue] = .target(target) }
        if let entity = mapping.sourceEntityName, source.entity(named: entity) != nil {
            variables["source"] = .object(entity, .source)
        }
        if let entity = mapping.destinationEntityName, destination.entity(named: entity) != nil {
            variables["destination"] = .object(entity, .destination)
        }
        self.variables = variables
    }

    mutating func report(_ severity: Diagnostic.Severity, _ message: String, _ offset: Int) {
        problems.append(Problem(severity: severity, message: message, offset: offset))
    }

    mutating func type(of expression: MappingExpression) -> ValueType {
        let offset = expression.offset
        switch expression.kind {
        case .constant(let constant):
            switch constant {
            case .null: return .null
            case .bool: return .bool
            case .integer: return .integer
            case .double: return .double
            case .string: return .string
            }
        case .truePredicate, .falsePredicate:
            return .bool
        case .variable(let name):
            guard let type = variables[name] else {
                let known = variables.keys.sorted().map { "$" + $0 }.joined(separator: ", ")
                report(.error, "unknown variable $\(name) (known here: \(known))", offset)
                return .unknown
            }
            return type
        case .keyPath(let base, let components):
            var current: ValueType
            if let base {
                current = type(of: base)
            } else if let sourceType = variables["source"] {
                current = sourceType
            } else {
                report(.error, "a key path needs a source object, and this mapping has no source entity", offset)
                return .unknown
            }
            for component in components {
                current = step(current, component, offset: offset)
            }
            return current
        case .aggregate(let items):
            let types = items.map { type(of: $0) }
            return .collection(
                types.first.map { first in types.allSatisfy { $0 == first } ? first : .unknown } ?? .unknown)
        case .function(let name, let arguments):
            return function(BuiltinFunction(named: name)!, arguments, offset: offset)
        case .call(let target, let selector, let arguments):
            return call(target, selector, arguments, offset: offset)
        case .ternary(let condition, let then, let otherwise):
            requireCondition(condition)
            let a = type(of: then)
            let b = type(of: otherwise)
            return a == b ? a : (a == .null ? b : (b == .null ? a : .unknown))
        case .index(let base, let index):
            let baseType = type(of: base)
            if case .position(let position) = index {
                let positionType = type(of: position)
                if positionType != .integer && positionType != .unknown {
                    report(.error, "an index must be an integer, not \(positionType)", position.offset)
                }
            }
            if case .size = index { return .integer }
            guard case .collection(let element) = baseType else {
                if baseType != .unknown && baseType != .null {
                    report(.error, "only a collection can be indexed, not \(baseType)", offset)
                }
                return .unknown
            }
            return element
        case .negate(let operand):
            let operandType = type(of: operand)
            if !operandType.isNumeric && operandType != .unknown && operandType != .null {
                report(.error, "cannot negate \(operandType)", offset)
            }
            return operandType
        case .arithmetic(let op, let lhs, let rhs):
            return arithmetic(op, type(of: lhs), type(of: rhs), offset: offset)
        case .comparison(let comparison):
            self.comparison(comparison, offset: offset)
            return .bool
        case .not(let operand):
            requireCondition(operand)
            return .bool
        case .and(let lhs, let rhs), .or(let lhs, let rhs):
            requireCondition(lhs)
            requireCondition(rhs)
            return .bool
        }
    }

    mutating func requireCondition(_ expression: MappingExpression) {
        let found = type(of: expression)
        switch found {
        case .bool, .unknown, .null, .integer, .double, .decimal: break
        default: report(.error, "a condition must be true or false, not \(found)", expression.offset)
        }
    }

    /// The type of `key` of a value of type `current`.
    mutating func step(_ current: ValueType, _ key: String, offset: Int) -> ValueType {
        if let op = CollectionOperator(rawValue: key) {
            guard case .collection(let element) = current else {
                if current != .unknown && current != .null {
                    report(.error, "\(key) needs a collection, not \(current)", offset)
                }
                return op == .count ? .integer : .unknown
            }
            switch op {
            case .count: return .integer
            case .sum, .average:
                return element == .integer && op == .sum ? .integer : (element.isNumeric ? .double : .unknown)
            case .minimum, .maximum: return element
            }
        }
        switch current {
        case .unknown, .null: return current
        case .object(let entityName?, let side):
            let model = side == .source ? source : destination
            guard let entity = model.entity(named: entityName) else { return .unknown }
            if let attribute = model.attribute(named: key, in: entity) {
                return ValueType(attribute.type)
            }
            if let relationship = model.relationship(named: key, in: entity) {
                let target = ValueType.object(relationship.destinationEntityName, side)
                return relationship.isToMany ? .collection(target) : target
            }
            let names = (model.allAttributes(of: entity).map(\.name) + model.allRelationships(of: entity).map(\.name))
            report(
                .error,
                "\(entityName) has no attribute or relationship \"\(key)\"\(Suggestions.didYouMean(key, in: names))",
                offset)
            return .unknown
        case .object(nil, _):
            return .unknown
        case .collection(let element):
            let inner = step(element, key, offset: offset)
            if case .collection = inner { return inner }
            return .collection(inner)
        default:
            report(.error, "cannot read the key \"\(key)\" of \(current)", offset)
            return .unknown
        }
    }

    mutating func function(_ function: BuiltinFunction, _ arguments: [MappingExpression], offset: Int) -> ValueType {
        let types = arguments.map { type(of: $0) }
        func requireText(_ index: Int) {
            let found = types[index]
            if !found.isText && found != .unknown && found != .null {
                report(.error, "\(function.rawValue)() needs text, not \(found)", arguments[index].offset)
            }
        }
        func requireNumber(_ index: Int) {
            let found = types[index]
            if !found.isNumeric && found != .unknown && found != .null {
                report(.error, "\(function.rawValue)() needs a number, not \(found)", arguments[index].offset)
            }
        }
        switch function {
        case .uppercase, .lowercase, .trim:
            requireText(0)
            return .string
        case .length:
            requireText(0)
            return .integer
        case .replace:
            requireText(0)
            requireText(1)
            requireText(2)
            return .string
        case .substring:
            requireText(0)
            requireNumber(1)
            if types.count > 2 { requireNumber(2) }
            return .string
        case .concat, .string: return .string
        case .join:
            if case .collection = types[0] {
            } else if types[0] != .unknown && types[0] != .null {
                report(.error, "join() needs a collection first, not \(types[0])", arguments[0].offset)
            }
            requireText(1)
            return .string
        case .number:
            return types[0] == .integer || types[0] == .bool ? .integer : (types[0] == .decimal ? .decimal : .unknown)
        case .integer: return .integer
        case .decimal: return .decimal
        case .date, .now: return .date
        case .uuid: return .uuid
        case .abs:
            requireNumber(0)
            return types[0] == .integer ? .integer : .double
        case .floor, .ceiling, .round:
            requireNumber(0)
            return types[0] == .integer ? .integer : .double
        case .count: return .integer
        case .sum, .average: return .unknown
        case .min, .max:
            let elements = types.count == 1 ? types[0].element : (types.first ?? .unknown)
            return elements
        case .coalesce:
            return types.first { $0 != .null } ?? .null
        }
    }

    mutating func call(
        _ target: MappingExpression, _ selector: String, _ arguments: [MappingExpression], offset: Int
    ) -> ValueType {
        let targetType = type(of: target)
        let types = arguments.map { type(of: $0) }
        guard case .target(let resolved) = targetType else {
            report(.error, "FUNCTION can call only $manager or $entityPolicy, not \(targetType)", target.offset)
            return .unknown
        }
        switch resolved {
        case .manager:
            guard Self.managerSelectors.contains(selector) else {
                report(
                    .error,
                    "$manager has no function \"\(selector)\" (it has: \(Self.managerSelectors.joined(separator: ", ")))",
                    offset)
                return .unknown
            }
            return managerCall(selector, arguments, types, offset: offset)
        case .entityPolicy:
            if mapping.policyName == nil {
                report(
                    .error, "FUNCTION($entityPolicy, …) needs a policy on this entity mapping (policy=\"…\")", offset)
            }
            return .unknown
        case .entityMapping, .propertyMapping:
            report(.error, "FUNCTION can call only $manager or $entityPolicy", target.offset)
            return .unknown
        }
    }

    mutating func managerCall(
        _ selector: String, _ arguments: [MappingExpression], _ types: [ValueType], offset: Int
    ) -> ValueType {
        guard case .constant(.string(let name)) = arguments[0].kind else {
            report(
                .warning, "the first argument of \(selector) is best written as text in quotes, so Molt can check it",
                arguments[0].offset)
            return .collection(.object(nil, selector.hasPrefix("source") ? .source : .destination))
        }
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:",
            "sourceInstancesForEntityMappingNamed:destinationInstances:":
            guard let named = mappingModel.entityMapping(named: name) else {
                let names = mappingModel.entityMappings.map(\.name)
                report(
                    .error, "there is no entity mapping called \"\(name)\"\(Suggestions.didYouMean(name, in: names))",
                    arguments[0].offset)
                return .collection(.object(nil, .destination))
            }
            if selector.hasPrefix("source") {
                return .collection(.object(named.sourceEntityName, .source))
            }
            // The objects passed in should be objects that mapping reads.
            if case .object(let entity?, .source) = types[1].element, let mappedSource = named.sourceEntityName,
                let given = source.entity(named: entity), let read = source.entity(named: mappedSource),
                !source.entity(read, isKindOf: given.name), !source.entity(given, isKindOf: read.name)
            {
                report(
                    .error,
                    "the entity mapping \"\(name)\" reads \(mappedSource) objects, but \(entity) objects are given",
                    arguments[1].offset)
            }
            return .collection(.object(named.destinationEntityName, .destination))
        default:
            // destinationInstancesForSourceRelationshipNamed:sourceInstances:
            if let entity = mapping.sourceEntityName.flatMap({ source.entity(named: $0) }),
                source.relationship(named: name, in: entity) == nil
            {
                let names = source.allRelationships(of: entity).map(\.name)
                report(
                    .error, "\(entity.name) has no relationship \"\(name)\"\(Suggestions.didYouMean(name, in: names))",
                    arguments[0].offset)
            }
            return .collection(.object(nil, .destination))
        }
    }

    mutating func arithmetic(_ op: ArithmeticOperator, _ a: ValueType, _ b: ValueType, offset: Int) -> ValueType {
        if a == .unknown || b == .unknown { return .unknown }
        if a == .null || b == .null { return .null }
        switch (op, a, b) {
        case (.add, .string, .string), (.add, .uri, .string), (.add, .string, .uri): return .string
        case (.add, .date, let other) where other.isNumeric: return .date
        case (.add, let other, .date) where other.isNumeric: return .date
        case (.subtract, .date, .date): return .double
        case (.subtract, .date, let other) where other.isNumeric: return .date
        default: break
        }
        guard a.isNumeric, b.isNumeric else {
            let hint = a.isText || b.isText ? " (use concat() to join text)" : ""
            report(.error, "cannot apply \(op.rawValue) to \(a) and \(b)\(hint)", offset)
            return .unknown
        }
        if a == .decimal || b == .decimal { return op == .power ? .double : .decimal }
        if op == .divide || op == .power { return .double }
        return a == .integer && b == .integer ? .integer : (a == .bool && b == .bool ? .integer : .double)
    }

    mutating func comparison(_ comparison: Comparison, offset: Int) {
        var lhs = type(of: comparison.lhs)
        let rhs = type(of: comparison.rhs)
        if let quantifier = comparison.quantifier {
            guard case .collection(let element) = lhs else {
                if lhs != .unknown && lhs != .null {
                    report(
                        .error, "\(quantifier.rawValue) needs a collection on the left, not \(lhs)",
                        comparison.lhs.offset)
                }
                return
            }
            lhs = element
        } else if case .collection = lhs, ![.in, .contains].contains(comparison.op) {
            report(
                .error, "the left side is a collection; start the comparison with ANY, ALL or NONE",
                comparison.lhs.offset)
            return
        }
        switch comparison.op {
        case .beginsWith, .endsWith, .like, .matches:
            for (side, found) in [(comparison.lhs, lhs), (comparison.rhs, rhs)]
            where !found.isText && found != .unknown && found != .null {
                report(.error, "\(comparison.op.rawValue) compares text, not \(found)", side.offset)
            }
            if comparison.op == .matches, case .constant(.string(let pattern)) = comparison.rhs.kind,
                (try? RegexCache.shared.regex(pattern, caseInsensitive: false)) == nil
            {
                report(.error, "\"\(pattern)\" is not a valid regular expression", comparison.rhs.offset)
            }
        case .in:
            switch rhs {
            case .collection(let element): comparable(lhs, element, offset: offset)
            case .string, .uri, .unknown, .null: break
            default: report(.error, "IN needs a collection or text on its right, not \(rhs)", comparison.rhs.offset)
            }
        case .contains:
            if case .collection(let element) = lhs {
                comparable(element, rhs, offset: offset)
            } else if !lhs.isText && lhs != .unknown && lhs != .null {
                report(.error, "CONTAINS needs text or a collection on its left, not \(lhs)", comparison.lhs.offset)
            }
        case .between:
            if case .collection(let element) = rhs {
                comparable(lhs, element, offset: offset)
            } else if rhs != .unknown {
                report(.error, "BETWEEN needs two bounds, as in {1, 10}", comparison.rhs.offset)
            }
        default:
            comparable(lhs, rhs, offset: offset)
        }
    }

    /// Reports comparisons that cannot work (an error) or depend on text reading as a number
    /// or date (a warning).
    mutating func comparable(_ a: ValueType, _ b: ValueType, offset: Int) {
        switch (a, b) {
        case (.unknown, _), (_, .unknown), (.null, _), (_, .null): return
        case (.object, .object): return
        case (.object, _), (_, .object), (.collection, _), (_, .collection), (.target, _), (_, .target), (.data, _),
            (_, .data):
            if a != b { report(.error, "cannot compare \(a) with \(b)", offset) }
        case _ where a.isNumeric && b.isNumeric: return
        case _ where a.isText && b.isText: return
        case (.date, .date), (.uuid, .uuid), (.uuid, .string), (.string, .uuid): return
        case (.date, _) where b.isNumeric, (_, .date) where a.isNumeric: return
        case (.date, .string), (.string, .date):
            return  // text is read as an ISO 8601 date when the filter runs
        case _ where (a.isText && b.isNumeric) || (a.isNumeric && b.isText):
            report(
                .warning, "compares text with a number: the text must read as a number when the mapping runs", offset)
        default:
            report(.error, "cannot compare \(a) with \(b)", offset)
        }
    }
}

/// "Did you mean …?" for misspelled names.
enum Suggestions {
    static func didYouMean(_ name: String, in candidates: [String]) -> String {
        let scored = candidates.map { ($0, distance(name.lowercased(), $0.lowercased())) }.filter {
            $0.1 <= max(2, name.count / 3)
        }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return "" }
        return "; did you mean \"\(best.0)\"?"
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a)
        let y = Array(b)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous = Array(0...y.count)
        for i in 1...x.count {
            var current = [i] + Array(repeating: 0, count: y.count)
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[y.count]
    }
}
