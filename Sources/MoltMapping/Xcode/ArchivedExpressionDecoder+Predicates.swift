internal import MoltCore

extension ArchivedExpressionDecoder {
    /// The condition an archived `NSPredicate` stands for.
    ///
    /// | archived class | fields | Molt |
    /// |---|---|---|
    /// | `NSTruePredicate`, `NSFalsePredicate` | none | `TRUEPREDICATE`, `FALSEPREDICATE` |
    /// | `NSCompoundPredicate` | `NSCompoundPredicateType` (0 NOT, 1 AND, 2 OR), `NSSubpredicates` | `NOT a`, `a AND b`, `a OR b` |
    /// | `NSComparisonPredicate` | `NSLeftExpression`, `NSRightExpression`, `NSPredicateOperator` | `lhs op rhs` |
    ///
    /// The operator object holds `NSOperatorType` (NSPredicateOperatorType's numbers),
    /// `NSModifier` (0 none, 1 ALL, 2 ANY) and `NSOptions` (1 `[c]`, 2 `[d]`, 4 normalized, which
    /// changes nothing here). A custom selector, locale-sensitive comparison or any other field
    /// is refused. Xcode writes a source fetch's predicate as text, so none of these appeared
    /// in the real files; they are read by Foundation's field names.
    mutating func predicate(_ object: ArchivedObject, depth: Int) throws -> MappingExpression {
        try count(depth)
        switch object.className {
        case "NSTruePredicate":
            try expectOnly(object, fields: [])
            return MappingExpression(.truePredicate)
        case "NSFalsePredicate":
            try expectOnly(object, fields: [])
            return MappingExpression(.falsePredicate)
        case "NSCompoundPredicate":
            try expectOnly(object, fields: ["NSCompoundPredicateType", "NSSubpredicates"])
            var subpredicates: [MappingExpression] = []
            if let list = try object.object("NSSubpredicates") {
                for element in try list.elements() {
                    subpredicates.append(try predicate(required(element, "a subpredicate"), depth: depth + 1))
                }
            }
            switch try object.integer("NSCompoundPredicateType") {
            case 0?:
                guard subpredicates.count == 1 else {
                    throw place.error(
                        "contains a NOT predicate with \(subpredicates.count) subpredicates instead of one")
                }
                return MappingExpression(.not(subpredicates[0]))
            case 1?:
                return subpredicates.dropFirst().reduce(subpredicates.first ?? MappingExpression(.truePredicate)) {
                    MappingExpression(.and($0, $1))
                }
            case 2?:
                return subpredicates.dropFirst().reduce(subpredicates.first ?? MappingExpression(.falsePredicate)) {
                    MappingExpression(.or($0, $1))
                }
            case let other:
                throw place.error("contains a compound predicate of unknown type \(other.map(String.init) ?? "nil")")
            }
        case "NSComparisonPredicate":
            try expectOnly(object, fields: ["NSLeftExpression", "NSRightExpression", "NSPredicateOperator"])
            let lhs = try expression(required(object.object("NSLeftExpression"), "a left expression"), depth: depth + 1)
            let rhs = try expression(
                required(object.object("NSRightExpression"), "a right expression"), depth: depth + 1)
            let operatorObject = try required(object.object("NSPredicateOperator"), "a comparison operator")
            try expectOnly(operatorObject, fields: ["NSOperatorType", "NSModifier", "NSOptions"])
            let op = try comparisonOperator(operatorObject.integer("NSOperatorType"))
            let quantifier: Comparison.Quantifier?
            switch try operatorObject.integer("NSModifier") ?? 0 {
            case 0: quantifier = nil
            case 1: quantifier = .all
            case 2: quantifier = .any
            case let other: throw place.error("contains a comparison with the unknown modifier \(other)")
            }
            let options = try operatorObject.integer("NSOptions") ?? 0
            guard options & ~7 == 0 else {
                throw place.error(
                    "contains a comparison with options \(options) (locale-sensitive or unknown), which Molt cannot import"
                )
            }
            return MappingExpression(
                .comparison(
                    Comparison(
                        op, lhs, rhs, caseInsensitive: options & 1 != 0, diacriticInsensitive: options & 2 != 0,
                        quantifier: quantifier)))
        default:
            throw unsupported(object)
        }
    }

    /// Molt's operator for an `NSPredicateOperatorType` number.
    func comparisonOperator(_ number: Int64?) throws -> Comparison.Operator {
        let operators: [Int64: Comparison.Operator] = [
            0: .less, 1: .lessOrEqual, 2: .greater, 3: .greaterOrEqual, 4: .equal, 5: .notEqual, 6: .matches,
            7: .like, 8: .beginsWith, 9: .endsWith, 10: .in, 99: .contains, 100: .between,
        ]
        guard let number, let op = operators[number] else {
            throw place.error(
                "contains a comparison with operator type \(number.map(String.init) ?? "nil"), which Molt cannot import (a custom selector?)"
            )
        }
        return op
    }

    /// Like ``expect(_:fields:)``, for objects that have no `NSExpressionType`.
    func expectOnly(_ object: ArchivedObject, fields: Set<String>) throws {
        if let unknown = object.fields.keys.filter({ $0 != "$class" && !fields.contains($0) }).sorted().first {
            throw place.error(
                "contains an \(object.className) with a field \"\(unknown)\" that Molt does not read",
                recovery: "Molt reads only the fields it knows, so that nothing changes meaning on the way.")
        }
    }
}
