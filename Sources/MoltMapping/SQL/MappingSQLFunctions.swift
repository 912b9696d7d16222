import MoltSQLite

/// SQL functions that let translated filters run Molt's own string rules inside SQLite, so a
/// filter gives the same answer in SQL as on objects in memory.
enum MappingSQLFunctions {
    /// `molt_string_op(operator, text, pattern, flags)`: 1 when `text` relates to `pattern` by
    /// the operator (`BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES`, `==`), with flags
    /// 1 (ignore case) and 2 (ignore diacritics); 0 otherwise, and 0 when either is NULL.
    static let stringOperator = "molt_string_op"

    static func register(on connection: SQLiteConnection) throws {
        try connection.registerFunction(stringOperator, argumentCount: 4) { arguments in
            guard case .text(let name) = arguments[0], let op = Comparison.Operator(rawValue: name),
                case .text(let text) = arguments[1], case .text(let pattern) = arguments[2]
            else { return .integer(0) }
            let options = StringOptions(rawValue: Int(arguments[3].integerValue ?? 0))
            return .integer(try StringOperators.test(op, text, pattern, options: options) ? 1 : 0)
        }
    }
}
