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
        if KeyPaths.isSelf(key) { return current }  // the object (or objects) itself
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
            if model.compositeAttribute(named: key, in: entity) != nil {
                return .composite(entity: entityName, store: side, path: key)
            }
            let names = (model.allAttributes(of: entity).map(\.name) + model.allRelationships(of: entity).map(\.name))
            report(
                .error,
                "\(entityName) has no attribute or relationship \"\(key)\"\(Suggestions.didYouMean(key, in: names))",
                offset)
            return .unknown
        case .object(nil, _):
            return .unknown
        case .composite(let entityName, let side, let path):
            let model = side == .source ? source : destination
            guard let entity = model.entity(named: entityName) else { return .unknown }
            let full = path + "." + key
            if let leaf = model.attribute(named: full, in: entity) { return ValueType(leaf.type) }
            let below = model.allAttributes(of: entity).map(\.name).filter { $0.hasPrefix(path + ".") }
            if below.contains(where: { $0.hasPrefix(full + ".") }) {
                return .composite(entity: entityName, store: side, path: full)
            }
            var elements: [String] = []
            for name in below {
                let element = String(name.dropFirst(path.count + 1).prefix { $0 != "." })
                if !elements.contains(element) { elements.append(element) }
            }
            report(
                .warning,
                "the composite \(entityName).\(path) has no element \"\(key)\", which reads as nil\(Suggestions.didYouMean(key, in: elements))",
                offset)
            return .null
        case .collection(let element):
            let inner = step(element, key, offset: offset)
            if case .collection = inner { return inner }
            return .collection(inner)
        default:
            report(.error, "cannot read the key \"\(key)\" of \(current)", offset)
            return .unknown
        }
    }
}
