import MoltStore

/// Prints expressions as canonical text: keywords in capitals, strings in double quotes,
/// only the parentheses precedence needs. Parsing the text gives back an equal expression.
enum ExpressionPrinter {
    static func text(of expression: MappingExpression) -> String {
        print(expression)
    }

    /// Binding strength, weakest first; a child weaker than its parent needs parentheses.
    static func precedence(_ expression: MappingExpression) -> Int {
        switch expression.kind {
        case .or: 1
        case .and: 2
        case .not: 3
        case .comparison: 4
        case .arithmetic(.add, _, _), .arithmetic(.subtract, _, _): 5
        case .arithmetic(.multiply, _, _), .arithmetic(.divide, _, _): 6
        case .arithmetic(.power, _, _): 7
        case .negate: 8
        case .constant(.integer(let value)) where value < 0: 8
        case .constant(.double(let value)) where value < 0 || (value == 0 && value.sign == .minus): 8
        default: 10
        }
    }

    static func wrapped(_ child: MappingExpression, if condition: Bool) -> String {
        condition ? "(\(print(child)))" : print(child)
    }

    static func print(_ expression: MappingExpression) -> String {
        let own = precedence(expression)
        switch expression.kind {
        case .constant(let constant):
            return text(of: constant)
        case .variable(let name):
            return "$" + name
        case .keyPath(let base, let components):
            let keys = components.map(key).joined(separator: ".")
            guard let base else { return keys }
            return wrapped(base, if: precedence(base) < 10) + "." + keys
        case .aggregate(let items):
            return "{" + items.map(print).joined(separator: ", ") + "}"
        case .function(let name, let arguments):
            return name + "(" + arguments.map(print).joined(separator: ", ") + ")"
        case .call(let target, let selector, let arguments):
            return "FUNCTION(" + ([print(target), quoted(selector)] + arguments.map(print)).joined(separator: ", ")
                + ")"
        case .ternary(let condition, let then, let otherwise):
            return "TERNARY(\(print(condition)), \(print(then)), \(print(otherwise)))"
        case .index(let base, let index):
            let inner: String
            switch index {
            case .position(let position): inner = print(position)
            case .first: inner = "FIRST"
            case .last: inner = "LAST"
            case .size: inner = "SIZE"
            }
            return wrapped(base, if: precedence(base) < 10) + "[" + inner + "]"
        case .negate(let operand):
            // A negation of a negation is "- -x": parentheses would make each level two levels
            // deep for the parser. "-(-1)" keeps its meaning only with them, and so does an
            // operand starting with a digit: "-2" would read as the number -2.
            if case .negate = operand.kind { return "- " + print(operand) }
            let text = wrapped(operand, if: precedence(operand) <= own)
            return "-" + (text.first?.isNumber == true ? "(\(text))" : text)
        case .arithmetic(let op, let lhs, let rhs):
            if op == .power {
                return wrapped(lhs, if: precedence(lhs) <= own) + " ** " + wrapped(rhs, if: precedence(rhs) < own)
            }
            return wrapped(lhs, if: precedence(lhs) < own) + " \(op.rawValue) "
                + wrapped(rhs, if: precedence(rhs) <= own)
        case .comparison(let comparison):
            var text = comparison.quantifier.map { $0.rawValue + " " } ?? ""
            text += wrapped(comparison.lhs, if: precedence(comparison.lhs) <= own)
            text += " " + comparison.op.rawValue
            let flags = (comparison.caseInsensitive ? "c" : "") + (comparison.diacriticInsensitive ? "d" : "")
            if !flags.isEmpty { text += "[\(flags)]" }
            text += " " + wrapped(comparison.rhs, if: precedence(comparison.rhs) <= own)
            return text
        case .not(let operand):
            return "NOT " + wrapped(operand, if: precedence(operand) < own)
        case .and(let lhs, let rhs):
            return wrapped(lhs, if: precedence(lhs) < own) + " AND " + wrapped(rhs, if: precedence(rhs) <= own)
        case .or(let lhs, let rhs):
            return wrapped(lhs, if: precedence(lhs) < own) + " OR " + wrapped(rhs, if: precedence(rhs) <= own)
        case .truePredicate:
            return "TRUEPREDICATE"
        case .falsePredicate:
            return "FALSEPREDICATE"
        }
    }

    static func text(of constant: Constant) -> String {
        switch constant {
        case .null: "nil"
        case .bool(let flag): flag ? "TRUE" : "FALSE"
        case .integer(let number): String(number)
        case .double(let number): number.description
        case .string(let text): quoted(text)
        }
    }

    /// A key as written in a key path: a plain name as it is, `#word` for a keyword, a
    /// collection operator (`@count`) as it is, and any other name as `#"name"` (a bracket, a
    /// space, a dot, a leading digit: whatever a model allows).
    static func key(_ name: String) -> String {
        if CollectionOperator(rawValue: name) != nil { return name }
        let plain =
            name.first.map { $0 == "_" || ($0.isLetter && !Self.isMark($0)) } == true
            && name.allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber }
        guard plain else { return "#" + quoted(name) }
        return Keywords.isKeyword(name) ? "#" + name : name
    }

    /// A lone combining mark, which the lexer does not take to start a name.
    private static func isMark(_ c: Character) -> Bool {
        switch c.unicodeScalars.first?.properties.generalCategory {
        case .nonspacingMark?, .spacingMark?, .enclosingMark?: true
        default: false
        }
    }

    /// A string literal: double quotes, with JSON's escapes (which the lexer reads back).
    static func quoted(_ text: String) -> String {
        JSONText.quoted(text)
    }
}
