import MoltCore
import MoltModel

/// Types of built-in functions and `FUNCTION` calls, checking their arguments.
extension ExpressionTyper {
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
}
