import Foundation
import MoltCore
import MoltMapping
import MoltModel
import MoltSQLite
import MoltStore

/// Attribute values that an in-place migration computes inside SQLite with the heavyweight
/// engine's own code: the mapping expression compiled by ``ExpressionCompiler``, evaluated
/// against the source row's attribute values, and converted by ``AttributeAssignment``. So a
/// changed type (`Integer 16` → `String`) or a default for empty values gives exactly the
/// bytes a heavyweight migration would write.
///
/// Registered as the SQL function `molt_row_value(entry, Z_PK, column…)`.
final class RowExpressions {
    static let functionName = "molt_row_value"

    struct Entry {
        let expression: CompiledExpression
        let sourceEntity: String
        /// The source attributes the expression reads, in argument order.
        let columns: [AttributeColumn]
        let destination: Attribute
        let mappingName: String
        let variables: [String: ExpressionValue]
    }

    private(set) var entries: [Entry] = []
    private let startDate: Date
    /// What the last failing call threw, so the migration reports it rather than SQLite's text.
    private(set) var lastError: MoltError?

    init(startDate: Date) {
        self.startDate = startDate
    }

    // MARK: Reading expressions

    /// `x` for the expression `$source.x`.
    static func sourceAttribute(_ expression: MappingExpression) -> String? {
        guard case .keyPath(let base?, let components) = expression.kind, components.count == 1,
            case .variable("source") = base.kind
        else { return nil }
        return components[0]
    }

    /// Whether the expression reads nothing but attributes of the source object itself,
    /// user-info variables, constants and built-in functions.
    static func readsOnlyTheRow(
        _ expression: MappingExpression, of entity: EntityLayout, userInfo: [String: String]
    )
        -> Bool
    {
        func check(_ node: MappingExpression) -> Bool {
            switch node.kind {
            case .constant, .truePredicate, .falsePredicate: return true
            case .variable(let name): return userInfo[name] != nil
            case .keyPath:
                guard let name = sourceAttribute(node) else { return false }
                return entity.attribute(named: name) != nil
            case .function(let name, let arguments):
                return BuiltinFunction(rawValue: name) != nil && arguments.allSatisfy(check)
            case .ternary(let condition, let then, let otherwise):
                return check(condition) && check(then) && check(otherwise)
            case .negate(let inner), .not(let inner): return check(inner)
            case .arithmetic(_, let lhs, let rhs), .and(let lhs, let rhs), .or(let lhs, let rhs):
                return check(lhs) && check(rhs)
            case .comparison(let comparison):
                return comparison.quantifier == nil && check(comparison.lhs) && check(comparison.rhs)
            case .aggregate, .call, .index: return false
            }
        }
        return check(expression)
    }

    /// The source attributes an expression reads.
    static func attributesRead(by expression: MappingExpression) -> [String] {
        var names: [String] = []
        func walk(_ node: MappingExpression) {
            if let name = sourceAttribute(node) {
                if !names.contains(name) { names.append(name) }
                return
            }
            switch node.kind {
            case .function(_, let arguments), .aggregate(let arguments): arguments.forEach(walk)
            case .ternary(let condition, let then, let otherwise): [condition, then, otherwise].forEach(walk)
            case .negate(let inner), .not(let inner), .index(let inner, _): walk(inner)
            case .arithmetic(_, let lhs, let rhs), .and(let lhs, let rhs), .or(let lhs, let rhs):
                walk(lhs)
                walk(rhs)
            case .comparison(let comparison):
                walk(comparison.lhs)
                walk(comparison.rhs)
            case .call(let target, _, let arguments): ([target] + arguments).forEach(walk)
            default: break
            }
        }
        walk(expression)
        return names
    }

    /// Adds an expression and returns its entry number.
    func add(
        _ expression: MappingExpression, sourceEntity: EntityLayout, destination: Attribute, mapping: EntityMapping
    )
        -> Int
    {
        let columns = Self.attributesRead(by: expression).compactMap { sourceEntity.attribute(named: $0) }
        entries.append(
            Entry(
                expression: ExpressionCompiler.compile(expression), sourceEntity: sourceEntity.name, columns: columns,
                destination: destination, mappingName: mapping.name,
                variables: EvaluationContext.variables(userInfo: mapping.userInfoDictionary)))
        return entries.count - 1
    }

    /// The SQL that computes entry `number` for the source row `row` (a table alias).
    func sql(_ number: Int, row: String) -> String {
        let arguments =
            ["\(number)", "\(row).\"Z_PK\""] + entries[number].columns.map { "\(row).\(SQL.identifier($0.column))" }
        return "\(Self.functionName)(\(arguments.joined(separator: ", ")))"
    }

    // MARK: Evaluating

    func register(on connection: SQLiteConnection) throws {
        try connection.registerFunction(Self.functionName, argumentCount: -1) { [unowned self] arguments in
            do {
                return try self.evaluate(arguments)
            } catch let error as MoltError {
                self.lastError = error
                throw error
            }
        }
    }

    private func evaluate(_ arguments: [SQLiteValue]) throws -> SQLiteValue {
        guard arguments.count >= 2, let number = arguments[0].integerValue, entries.indices.contains(Int(number)) else {
            throw MoltError(.migration, "\(Self.functionName) was called with unknown arguments")
        }
        let entry = entries[Int(number)]
        let object = ObjectID(entity: entry.sourceEntity, primaryKey: arguments[1].integerValue ?? 0)
        var values: [String: ExpressionValue] = [:]
        for (offset, column) in entry.columns.enumerated() {
            let stored = arguments[2 + offset]
            do {
                values[column.attribute.name] = ExpressionValue(
                    try AttributeValue.read(stored, as: column.attribute.type))
            } catch var error as MoltError {
                error.message = "\(object): \(error.message)"
                throw error.about(entity: entry.sourceEntity, property: column.attribute.name)
            }
        }
        let resolver = RowResolver(object: object, values: values)
        var variables = entry.variables
        variables["source"] = .object(ObjectReference(.source, object))
        let context = EvaluationContext(variables: variables, resolver: resolver)
        let start = startDate
        context.now = { start }
        let property = entry.destination.name
        do {
            let value = try entry.expression.evaluate(context)
            return try AttributeAssignment.convert(value, to: entry.destination)?.sqliteValue ?? .null
        } catch let error as EvaluationError {
            throw MoltError(
                .migration,
                "\(entry.mappingName): \(object): the value of \(property) (\(entry.expression.expression)) failed: \(error.message)",
                entity: entry.mappingName, property: property)
        } catch var error as MoltError {
            error.message = "\(entry.mappingName): \(object): \(error.message)"
            throw error.about(entity: entry.mappingName, property: property)
        }
    }
}

/// Answers `$source.attribute` from one row's values.
private final class RowResolver: ObjectResolver {
    let object: ObjectID
    let values: [String: ExpressionValue]

    init(object: ObjectID, values: [String: ExpressionValue]) {
        self.object = object
        self.values = values
    }

    func value(of key: String, on reference: ObjectReference) throws -> ExpressionValue {
        guard reference.id == object, let value = values[key] else {
            throw MoltError(.migration, "\(reference.id): \(key) is not available while migrating in place")
        }
        return value
    }
}
