extension MappingExpression {
    /// The expression with `transform` applied to every sub-expression, the innermost first
    /// (each node is given with its children already rewritten). Offsets are kept.
    public func rewritten(_ transform: (MappingExpression) -> MappingExpression) -> MappingExpression {
        func inner(_ expression: MappingExpression) -> MappingExpression { expression.rewritten(transform) }
        var copy = self
        switch kind {
        case .constant, .variable, .truePredicate, .falsePredicate:
            break
        case .keyPath(let base, let components):
            copy.kind = .keyPath(base: base.map(inner), components: components)
        case .aggregate(let items):
            copy.kind = .aggregate(items.map(inner))
        case .function(let name, let arguments):
            copy.kind = .function(name: name, arguments: arguments.map(inner))
        case .call(let target, let selector, let arguments):
            copy.kind = .call(target: inner(target), selector: selector, arguments: arguments.map(inner))
        case .ternary(let condition, let then, let otherwise):
            copy.kind = .ternary(condition: inner(condition), then: inner(then), otherwise: inner(otherwise))
        case .index(let base, let index):
            if case .position(let position) = index {
                copy.kind = .index(inner(base), .position(inner(position)))
            } else {
                copy.kind = .index(inner(base), index)
            }
        case .negate(let operand):
            copy.kind = .negate(inner(operand))
        case .not(let operand):
            copy.kind = .not(inner(operand))
        case .arithmetic(let op, let lhs, let rhs):
            copy.kind = .arithmetic(op, inner(lhs), inner(rhs))
        case .and(let lhs, let rhs):
            copy.kind = .and(inner(lhs), inner(rhs))
        case .or(let lhs, let rhs):
            copy.kind = .or(inner(lhs), inner(rhs))
        case .comparison(var comparison):
            comparison.lhs = inner(comparison.lhs)
            comparison.rhs = inner(comparison.rhs)
            copy.kind = .comparison(comparison)
        }
        return transform(copy)
    }
}
