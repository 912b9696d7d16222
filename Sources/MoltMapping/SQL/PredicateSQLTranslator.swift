public import Foundation
internal import MoltModel
internal import MoltSQLite
public import MoltStore

/// How a filter runs: the part SQLite can check while reading the source table, and the rest,
/// checked on each object read.
public struct FilterPlan: Sendable {
    /// Conditions SQLite checks (nil: every row is read).
    public var condition: SQLCondition?
    /// Conditions checked on each object in memory (nil: none).
    public var residual: MappingExpression?

    /// Whether the whole filter runs in SQL.
    public var isFullySQL: Bool { residual == nil }
}

/// Translates a filter into SQL on the source entity's table, as far as it keeps the exact
/// meaning of in-memory evaluation (see `ValueComparison`).
///
/// The filter's top-level `AND` parts are translated one by one; the parts that cannot be go to
/// ``FilterPlan/residual``. Translated: comparisons of a stored attribute of the entity with a
/// constant (literals, `$variables`, functions of constants such as `date("…")` and `now()`) or
/// with another attribute of the same kind, `IN` a list, `BETWEEN`, string operators with
/// `[c]`/`[d]` (through an SQL function running Molt's own rules), `== nil` / `!= nil` on
/// attributes and to-one relationships, `TRUEPREDICATE`, `FALSEPREDICATE`, and `AND`/`OR`/`NOT`
/// of translated parts. Not translated: key paths through relationships, `ANY`/`ALL`/`NONE`,
/// `FUNCTION`, and comparisons whose meaning differs in SQL (a string attribute against a number).
public enum PredicateSQLTranslator {
    /// Plans `filter` for objects of `entity`. `variables` are the user-info values the filter
    /// may name; `now` is the time `now()` stands for.
    ///
    /// With `objects` (the side of the objects the filter tests and its store's layout),
    /// comparisons of `SELF` with objects are translated too (`SELF == %@`, `SELF IN %@`).
    public static func plan(
        _ filter: MappingExpression, entity: EntityLayout, variables: [String: ExpressionValue], now: Date = Date(),
        objects: (side: ObjectReference.Store, layout: StoreLayout)? = nil, relationshipsInSQL: Bool = true
    ) -> FilterPlan {
        let translator = Translator(
            entity: entity, variables: variables, now: now, objects: objects, relationshipsInSQL: relationshipsInSQL)
        var translated: [SQLPart] = []
        var residual: [MappingExpression] = []
        for part in conjuncts(of: filter) {
            if let sql = translator.translate(part) {
                translated.append(sql)
            } else {
                residual.append(part)
            }
        }
        // Joined as a balanced tree, as chains inside are (``Translator/balanced(_:word:)``).
        let joined = translated.isEmpty ? nil : Translator.balanced(translated[...], word: "AND")
        let condition = joined.map { SQLCondition(sql: $0.sql, bindings: $0.bindings) }
        let rest = residual.dropFirst().reduce(residual.first) { combined, next in
            combined.map { MappingExpression(.and($0, next), offset: $0.offset) }
        }
        return FilterPlan(condition: condition, residual: rest)
    }

    static func conjuncts(of expression: MappingExpression) -> [MappingExpression] {
        Translator.chain(expression, and: true)
    }
}

/// SQL text with its parameters; always 0 or 1 (never NULL), so NOT and OR keep their meaning.
struct SQLPart {
    var sql: String
    var bindings: [SQLiteValue]
}

private struct Translator {
    let entity: EntityLayout
    let variables: [String: ExpressionValue]
    let now: Date
    let objects: (side: ObjectReference.Store, layout: StoreLayout)?
    /// Whether to-one relationships may be tested in SQL (not when links to objects a policy
    /// deleted from the source context must read as gone, which only the resolver knows).
    let relationshipsInSQL: Bool

    /// A side of a comparison: a column of the entity's table, the object itself (`SELF`), or
    /// a constant.
    enum Operand {
        case attribute(AttributeColumn)
        case toOne(column: String)
        case itself
        case constant(ExpressionValue)
    }

    func translate(_ expression: MappingExpression) -> SQLPart? {
        switch expression.kind {
        case .truePredicate, .constant(.bool(true)): return SQLPart(sql: "1", bindings: [])
        case .falsePredicate, .constant(.bool(false)): return SQLPart(sql: "0", bindings: [])
        case .and, .or:
            // A chain of one operator (`a OR b OR c …`, up to the 2,000 the parser allows) as
            // a balanced tree: SQLite's parser overflows its stack at about 90 nested brackets,
            // and its expression depth is capped at 1,000.
            let isAnd = if case .and = expression.kind { true } else { false }
            var parts: [SQLPart] = []
            for operand in Self.chain(expression, and: isAnd) {
                guard let part = translate(operand) else { return nil }
                parts.append(part)
            }
            return Self.balanced(parts[...], word: isAnd ? "AND" : "OR")
        case .not(let operand):
            guard let inner = translate(operand) else { return nil }
            return SQLPart(sql: "(NOT \(inner.sql))", bindings: inner.bindings)
        case .comparison(let comparison):
            return translate(comparison)
        default:
            return nil
        }
    }

    /// The operands of a chain of one operator (`AND` or `OR`), in order: the parser builds
    /// `a OR b OR c` leaning left, so the walk is a loop down the left side, not a recursion.
    static func chain(_ expression: MappingExpression, and isAnd: Bool) -> [MappingExpression] {
        var operands: [MappingExpression] = []
        var pending = [expression]
        while let next = pending.popLast() {
            switch next.kind {
            case .and(let lhs, let rhs) where isAnd, .or(let lhs, let rhs) where !isAnd:
                pending.append(rhs)
                pending.append(lhs)
            default:
                operands.append(next)
            }
        }
        return operands
    }

    /// `parts` joined by `word`, bracketed as a balanced tree (depth log2 of the count).
    static func balanced(_ parts: ArraySlice<SQLPart>, word: String) -> SQLPart {
        if parts.count == 1 { return parts[parts.startIndex] }
        let middle = parts.startIndex + parts.count / 2
        let left = balanced(parts[..<middle], word: word)
        let right = balanced(parts[middle...], word: word)
        return SQLPart(sql: "(\(left.sql) \(word) \(right.sql))", bindings: left.bindings + right.bindings)
    }

    func operand(_ expression: MappingExpression) -> Operand? {
        if case .keyPath(let base, let components) = expression.kind, components.count == 1 {
            switch base?.kind {
            case nil, .variable("source")?:
                if KeyPaths.isSelf(components[0]) { return objects == nil ? nil : .itself }
                if let column = entity.attribute(named: components[0]) { return .attribute(column) }
                if relationshipsInSQL, let link = entity.relationship(named: components[0]),
                    case .foreignKey(let column, _, _) = link.storage
                {
                    return .toOne(column: column)
                }
                return nil
            default: break
            }
        }
        if case .variable(let name) = expression.kind, let value = variables[name] {
            switch value {
            case .object, .collection: return .constant(value)  // compared with SELF only
            default: break
            }
        }
        guard isConstant(expression) else { return nil }
        let context = EvaluationContext(variables: variables)
        let fixedNow = now
        context.now = { fixedNow }
        guard let value = try? ExpressionCompiler.compile(expression).evaluate(context) else { return nil }
        return .constant(value)
    }

    /// Whether an expression reads no object: literals, variables that are not objects, and
    /// built-in functions of those.
    func isConstant(_ expression: MappingExpression) -> Bool {
        switch expression.kind {
        case .constant: return true
        case .variable(let name):
            guard let value = variables[name] else { return false }
            switch value {
            case .object, .target, .collection: return false
            default: return true
            }
        case .aggregate(let items): return items.allSatisfy(isConstant)
        case .function(let name, let arguments):
            return BuiltinFunction(named: name) != .uuid && arguments.allSatisfy(isConstant)
        case .negate(let operand): return isConstant(operand)
        case .arithmetic(_, let lhs, let rhs): return isConstant(lhs) && isConstant(rhs)
        default: return false
        }
    }

    func translate(_ comparison: Comparison) -> SQLPart? {
        guard comparison.quantifier == nil, let left = operand(comparison.lhs), let right = operand(comparison.rhs)
        else { return nil }
        let options = StringOptions(comparison)
        switch (left, right) {
        case (.attribute(let column), .constant(let value)):
            return compare(column, comparison.op, value, options: options, mirrored: false)
        case (.constant(let value), .attribute(let column)):
            guard [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual].contains(comparison.op) else {
                return nil
            }
            return compare(column, comparison.op, value, options: options, mirrored: true)
        case (.itself, .constant(let value)):
            return compareItself(comparison.op, value)
        case (.constant(let value), .itself):
            return comparison.op == .in ? nil : compareItself(comparison.op, value)
        case (.attribute(let a), .attribute(let b)):
            return compareColumns(a, comparison.op, b, options: options)
        case (.toOne(let column), .constant(.null)), (.constant(.null), .toOne(let column)):
            switch comparison.op {
            case .equal: return SQLPart(sql: "(\(SQL.identifier(column)) IS NULL)", bindings: [])
            case .notEqual: return SQLPart(sql: "(\(SQL.identifier(column)) IS NOT NULL)", bindings: [])
            default: return nil
            }
        default:
            return nil
        }
    }

    /// `SELF ==`, `!=` or `IN` objects: by key and entity number, as object references compare
    /// (an object of the other store, or of an entity outside this table, is never equal).
    func compareItself(_ op: Comparison.Operator, _ value: ExpressionValue) -> SQLPart? {
        guard let objects else { return nil }
        func keyed(_ item: ExpressionValue) -> (key: Int64, number: Int)?? {
            switch item {
            case .null: return .some(nil)
            case .object(let reference):
                guard reference.store == objects.side,
                    let number = objects.layout.entity(named: reference.id.entity)?.number,
                    entity.kindNumbers.contains(number)
                else { return .some(nil) }
                return (reference.id.primaryKey, number)
            default: return nil  // not an object: compared in memory
            }
        }
        switch op {
        case .equal, .notEqual:
            guard let found = keyed(value) else { return nil }
            let test =
                found.map {
                    SQLPart(
                        sql: "(\"Z_PK\" = ? AND \"Z_ENT\" = ?)",
                        bindings: [.integer($0.key), .integer(Int64($0.number))])
                } ?? SQLPart(sql: "0", bindings: [])
            return op == .equal ? test : SQLPart(sql: "(NOT \(test.sql))", bindings: test.bindings)
        case .in:
            guard case .collection(let items) = value else { return nil }
            var keysByNumber: [Int: [Int64]] = [:]
            for item in items {
                guard let found = keyed(item) else { return nil }
                if let found { keysByNumber[found.number, default: []].append(found.key) }
            }
            guard !keysByNumber.isEmpty else { return SQLPart(sql: "0", bindings: []) }
            var parts: [String] = []
            var bindings: [SQLiteValue] = []
            for (number, keys) in keysByNumber.sorted(by: { $0.key < $1.key }) {
                parts.append("(\"Z_ENT\" = ? AND \"Z_PK\" IN (\(SQL.placeholders(keys.count))))")
                bindings.append(.integer(Int64(number)))
                bindings += keys.map { .integer($0) }
            }
            return SQLPart(sql: "(\(parts.joined(separator: " OR ")))", bindings: bindings)
        default:
            return nil
        }
    }

    /// The kind of comparison an attribute type takes part in.
    enum Family { case numeric, date, text, uuid, bytes }

    func family(_ type: AttributeType) -> Family? {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean: .numeric
        case .date: .date
        case .string, .uri: .text
        case .uuid: .uuid
        case .binary, .transformable: .bytes
        case .undefined, .objectID, .composite: nil
        }
    }

    /// The SQL value a constant has when compared with an attribute, or nil when SQL would
    /// compare it differently than Molt does.
    func sqlValue(_ value: ExpressionValue, for attribute: Attribute) -> SQLiteValue? {
        guard let family = family(attribute.type) else { return nil }
        switch (family, value) {
        case (_, .null): return .null
        case (.numeric, .string(let text)):
            guard let number = Numeric.parse(text) else { return nil }
            return sqlNumber(number)
        case (.numeric, _):
            guard let number = Numeric(value) else { return nil }
            return sqlNumber(number)
        case (.date, .date(let date)): return .real(date.timeIntervalSinceReferenceDate)
        case (.date, .string(let text)): return ISODate.parse(text).map(SQLiteValue.real)
        case (.date, _): return Numeric(value).map { .real($0.double) }
        case (.text, .string(let text)), (.text, .uri(let text)): return .text(text)
        case (.uuid, .uuid(let uuid)): return .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })
        case (.uuid, .string(let text)):
            return UUID(uuidString: text).map { uuid in .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) }) }
        case (.bytes, .data(let bytes)): return .blob(bytes)
        default: return nil
        }
    }

    func sqlNumber(_ number: Numeric) -> SQLiteValue {
        switch number {
        case .integer(let value): .integer(value)
        case .double(let value): .real(value)
        case .decimal: .real(number.double)
        }
    }

    func compare(
        _ column: AttributeColumn, _ op: Comparison.Operator, _ value: ExpressionValue, options: StringOptions,
        mirrored: Bool
    )
        -> SQLPart?
    {
        let name = SQL.identifier(column.column)
        let attribute = column.attribute
        switch op {
        case .equal, .notEqual:
            if case .null = value {
                return SQLPart(sql: "(\(name) IS \(op == .equal ? "" : "NOT ")NULL)", bindings: [])
            }
            if !options.isEmpty {
                guard family(attribute.type) == .text, case .string(let text) = value else { return nil }
                let test = stringTest("==", name, text, options)
                return op == .equal ? test : SQLPart(sql: "(NOT \(test.sql))", bindings: test.bindings)
            }
            guard let bound = sqlValue(value, for: attribute) else { return nil }
            return SQLPart(sql: "(\(name) IS \(op == .equal ? "" : "NOT ")?)", bindings: [bound])
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            if case .null = value { return SQLPart(sql: "0", bindings: []) }
            guard family(attribute.type) != .bytes, let bound = sqlValue(value, for: attribute) else { return nil }
            let symbol = mirrored ? mirror(op) : op.rawValue
            return SQLPart(sql: "COALESCE(\(name) \(symbol) ?, 0)", bindings: [bound])
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard family(attribute.type) == .text else { return nil }
            switch value {
            case .null: return SQLPart(sql: "0", bindings: [])
            case .string(let text):
                if op == .matches, (try? RegexCache.shared.regex(text, caseInsensitive: false)) == nil { return nil }
                return stringTest(op.rawValue, name, text, options)
            default: return nil
            }
        case .in:
            guard options.isEmpty, case .collection(let items) = value, !items.contains(.null) else { return nil }
            guard !items.isEmpty else { return SQLPart(sql: "0", bindings: []) }
            let bound = items.compactMap { sqlValue($0, for: attribute) }
            guard bound.count == items.count else { return nil }
            return SQLPart(sql: "COALESCE(\(name) IN (\(SQL.placeholders(bound.count))), 0)", bindings: bound)
        case .between:
            guard case .collection(let bounds) = value, bounds.count == 2, family(attribute.type) != .bytes,
                let low = sqlValue(bounds[0], for: attribute), let high = sqlValue(bounds[1], for: attribute),
                low != .null, high != .null
            else { return nil }
            return SQLPart(sql: "COALESCE(\(name) BETWEEN ? AND ?, 0)", bindings: [low, high])
        }
    }

    func compareColumns(
        _ a: AttributeColumn, _ op: Comparison.Operator, _ b: AttributeColumn, options: StringOptions
    )
        -> SQLPart?
    {
        guard options.isEmpty, let family = family(a.attribute.type), family == self.family(b.attribute.type) else {
            return nil
        }
        let left = SQL.identifier(a.column)
        let right = SQL.identifier(b.column)
        switch op {
        case .equal: return SQLPart(sql: "(\(left) IS \(right))", bindings: [])
        case .notEqual: return SQLPart(sql: "(\(left) IS NOT \(right))", bindings: [])
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard family != .bytes else { return nil }
            return SQLPart(sql: "COALESCE(\(left) \(op.rawValue) \(right), 0)", bindings: [])
        default: return nil
        }
    }

    func stringTest(_ op: String, _ column: String, _ pattern: String, _ options: StringOptions) -> SQLPart {
        SQLPart(
            sql: "\(MappingSQLFunctions.stringOperator)(?, \(column), ?, \(options.rawValue))",
            bindings: [.text(op), .text(pattern)])
    }

    func mirror(_ op: Comparison.Operator) -> String {
        switch op {
        case .less: ">"
        case .lessOrEqual: ">="
        case .greater: "<"
        case .greaterOrEqual: "<="
        default: op.rawValue
        }
    }
}
