internal import MoltCore

/// Turning an archived `NSExpression` (a derived attribute's derivation) back into the text
/// Xcode's model files hold: key paths (`author.name`, `tags.@count`), variables (`$now`),
/// constants, and function calls in `NSExpression`'s own spelling (`now()`,
/// `lowercase:(title)`). Other kinds give nil, which the caller notes: derivations never take
/// part in version hashes. Nesting deeper than ``CompiledModelDecoder/Limits/maximumExpressionDepth``
/// gives nil too.
///
/// The archived shapes (from the key-path expressions of Xcode mapping files): a key-path
/// expression is an `NSKeyPathExpression` whose `NSSelectorName` is `valueForKeyPath:`, whose
/// `NSOperand` is the object (`NSSelfExpression` for the object itself, or a variable) and
/// whose `NSArguments` hold an `NSKeyPathSpecifierExpression` (`NSKeyPath`); a function is an
/// `NSFunctionExpression` with its selector and arguments.
extension CompiledModelContext {
    func expressionText(_ object: ArchivedObject, depth: Int) throws -> String? {
        guard depth < limits.maximumExpressionDepth else { return nil }
        try spend()
        switch object.className {
        case "NSSelfExpression":
            return "SELF"
        case "NSVariableExpression":
            return try object.string("NSVariable").map { "$" + $0 }
        case "NSKeyPathSpecifierExpression":
            return try object.string("NSKeyPath")
        case "NSConstantValueExpression":
            switch try object.value("NSConstantValue") {
            case .plain(.string(let text))?: return "\"" + text.replacingOccurrences(of: "\"", with: "\\\"") + "\""
            case .plain(let value)?: return value.scalarText
            case nil: return "nil"
            default: return nil
            }
        case "NSKeyPathExpression", "NSFunctionExpression":
            guard let selector = try object.string("NSSelectorName") else { return nil }
            var arguments: [String] = []
            for argument in try elements(object, "NSArguments", what: "the arguments of an expression") {
                guard case .object(let part)? = argument, let text = try expressionText(part, depth: depth + 1) else {
                    return nil
                }
                arguments.append(text)
            }
            if selector == "valueForKeyPath:" {
                guard arguments.count == 1, let operand = try object.object("NSOperand") else { return nil }
                guard let base = try expressionText(operand, depth: depth + 1) else { return nil }
                return base == "SELF" ? arguments[0] : "\(base).\(arguments[0])"
            }
            return "\(selector)(\(arguments.joined(separator: ", ")))"
        default:
            return nil
        }
    }
}
