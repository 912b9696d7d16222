public import Molt

/// The expressions and filters a generated mapping file uses, in Molt's expression language
/// (`MappingModels/README.md`): key paths on `$source`, arithmetic, the built-in string and
/// number functions, constants, `TERNARY`, `coalesce`, user-info variables; filters of
/// comparisons, text operators, `BETWEEN`, `IN`, `@count`, `AND`/`OR`/`NOT`.
public enum ValueExpressions {
    /// `$source.name`.
    static func key(_ name: String) -> String { "$source.\(name)" }

    /// Expressions turning `reference`, a value of type `from`, into a value for a `to`
    /// attribute (empty when there is no sensible one).
    public static func conversions(
        of reference: String, from: AttributeType, to: AttributeType, userInfoKey: String? = nil
    ) -> [String] {
        let ref = reference
        let integers = AttributeTypeRules.integers
        let fractional: [AttributeType] = [.double, .float, .decimal]
        switch (from, to) {
        case (let a, let b) where integers.contains(a) && a == b:
            return [
                ref, "\(ref) + 1", "\(ref) * 2", "abs(\(ref))", "-\(ref)", "max(\(ref), 0)",
                "TERNARY(\(ref) > 0, \(ref), 0)",
            ]
        case (.integer16, .integer32), (.integer16, .integer64), (.integer32, .integer64):
            return [ref, "\(ref) - 5"]
        case (.integer32, .integer16):
            return ["integer(\(ref) / 1000)"]
        case (.integer64, .integer16), (.integer64, .integer32):
            return ["integer(\(ref) / 1000000007)"]
        case (let a, let b) where integers.contains(a) && [.double, .float].contains(b):
            return [ref, "\(ref) / 4", "\(ref) * 0.5"]
        case (let a, .decimal) where integers.contains(a):
            return [ref, "\(ref) + 1", "decimal(\(ref))"]
        case (let a, .string) where integers.contains(a) || fractional.contains(a):
            return ["string(\(ref))", "concat('#', \(ref))"]
        case (let a, .boolean) where integers.contains(a):
            return [ref, "TERNARY(\(ref) > 0, YES, NO)"]
        case (.double, .double), (.float, .float):
            return [ref, "\(ref) * 2", "floor(\(ref))", "round(\(ref))", "abs(\(ref))", "\(ref) / 3"]
        case (.decimal, .decimal):
            return [ref, "\(ref) * 2", "\(ref) + 1", "round(\(ref))"]
        case (.double, .float), (.float, .double):
            return [ref, "\(ref) + 0.5"]
        case (let a, let b) where fractional.contains(a) && integers.contains(b):
            return ["round(\(ref))", "floor(\(ref))", "integer(\(ref))", "ceiling(\(ref))"]
        case (.double, .decimal), (.float, .decimal):
            return [ref, "decimal(\(ref))"]
        case (.decimal, .double), (.decimal, .float):
            return [ref, "number(\(ref))"]
        case (.string, .string):
            return [
                ref, "uppercase(\(ref))", "lowercase(\(ref))", "trim(\(ref))", "concat(\(ref), '-v2')",
                "substring(\(ref), 1, 4)", "replace(\(ref), ' ', '_')", "TERNARY(\(ref) BEGINSWITH 'l', 'L', 'other')",
            ] + (userInfoKey.map { ["concat(\(ref), $\($0))"] } ?? [])
        case (.string, let b) where integers.contains(b) || b == .double:
            return ["length(\(ref))"]
        case (.string, .boolean):
            return ["TERNARY(length(\(ref)) > 12, YES, NO)"]
        case (.string, .uri):
            return [ref, "concat('https://example.com/', replace(\(ref), ' ', '-'))"]
        case (.boolean, .boolean):
            return [ref, "TERNARY(\(ref) == YES, NO, YES)"]
        case (.boolean, let b) where integers.contains(b):
            return [ref, "TERNARY(\(ref) == YES, 10, 20)"]
        case (.boolean, .string):
            return ["TERNARY(\(ref) == YES, 'yes', 'no')"]
        case (.date, .date):
            return [ref, "\(ref) + 3600", "\(ref) - 86400"]
        case (.date, .double):
            return ["number(\(ref))"]
        case (.date, .string):
            return ["string(\(ref))"]
        case (.uuid, .uuid), (.uri, .uri), (.binary, .binary), (.transformable, .transformable),
            (.binary, .transformable), (.transformable, .binary):
            return [ref]
        case (.uuid, .string), (.uri, .string):
            return [ref, "string(\(ref))"]
        default:
            return []
        }
    }

    /// A constant for a `type` attribute (nil for Binary and Transformable).
    public static func constant(for type: AttributeType, random: inout SplitMix) -> String? {
        switch type {
        case .integer16, .integer32, .integer64: random.pick(["7", "0", "-12"])
        case .double, .float: random.pick(["2.5", "0", "-0.75"])
        case .decimal: random.pick(["1.25", "3"])
        case .string: random.pick(["'fixed'", "'x'", "''"])
        case .boolean: random.pick(["YES", "NO"])
        case .date: random.pick(["date('2024-05-01T12:00:00Z')", "date(700000000)"])
        case .uuid: "uuid('6F9619FF-8B86-D011-B42D-00C04FC964FF')"
        case .uri: "'https://example.com/fixed'"
        default: nil
        }
    }

    /// A value for the destination attribute `target` of a mapping reading `attributes` (the
    /// source entity's), whose counterpart is `counterpart`; nil when none fits. `needed`:
    /// inference cannot give one (the value must not be nil when `target` is required).
    public static func value(
        for target: GeneratedAttribute, counterpart: GeneratedAttribute?, attributes: [GeneratedAttribute],
        userInfoKey: String?, random: inout SplitMix
    ) -> String? {
        var choices: [(String, Bool)] = []  // (expression, may be nil)
        if let counterpart {
            for expression in conversions(
                of: key(counterpart.name), from: counterpart.type, to: target.type, userInfoKey: userInfoKey)
            {
                choices += Array(repeating: (expression, counterpart.isOptional), count: 3)
            }
        }
        for other in attributes where other.name != counterpart?.name {
            for expression in conversions(of: key(other.name), from: other.type, to: target.type) {
                choices.append((expression, other.isOptional))
            }
        }
        if target.type == .string, attributes.count > 1 {
            let (a, b) = (random.pick(attributes), random.pick(attributes))
            choices.append(("concat(\(key(a.name)), ' ', \(key(b.name)))", false))
        }
        if let constant = constant(for: target.type, random: &random) {
            choices += [(constant, false), (constant, false)]
        }
        if target.isOptional { choices.append(("nil", true)) }
        guard let (expression, mayBeNil) = random.pickIfAny(choices) else { return nil }
        if mayBeNil, expression != "nil", !target.isOptional, random.chance(90),
            let fallback = constant(for: target.type, random: &random)
        {
            return "coalesce(\(expression), \(fallback))"
        }
        return expression
    }

    /// A filter over a source entity's `attributes` and `relationships`.
    public static func filter(
        attributes: [GeneratedAttribute], relationships: [GeneratedRelationship], random: inout SplitMix
    ) -> String? {
        /// One comparison on an attribute or relationship.
        func atom(_ random: inout SplitMix) -> String? {
            if !relationships.isEmpty, attributes.isEmpty || random.chance(20) {
                let relationship = random.pick(relationships)
                return relationship.isToMany
                    ? random.pick(["\(relationship.name).@count > 0", "\(relationship.name).@count >= 2"])
                    : random.pick(["\(relationship.name) != nil", "\(relationship.name) == nil"])
            }
            guard let attribute = random.pickIfAny(attributes) else { return nil }
            let a = attribute.name
            switch attribute.type {
            case .integer16, .integer32, .integer64:
                let scale = attribute.type == .integer16 ? 1 : attribute.type == .integer32 ? 1000 : 1_000_000_007
                return random.pick([
                    "\(a) > 0", "\(a) <= \(300 * scale)", "\(a) BETWEEN {\(-300 * scale), \(300 * scale)}",
                    "\(a) IN {0, 1, 2, 3}", "\(a) != nil", "\(a) == nil", "\(a) >= \(-100 * scale)",
                ])
            case .double, .float, .decimal:
                return random.pick(["\(a) > 0", "\(a) < 50.5", "\(a) BETWEEN {-50, 50}", "\(a) != nil"])
            case .string:
                return random.pick([
                    "\(a) CONTAINS '-'", "\(a) ENDSWITH '7'", "\(a) LIKE '*1*'", "\(a) MATCHES '.* [0-3] .*'",
                    "\(a) BEGINSWITH[c] 'LAB'", "\(a) == nil", "\(a) != nil", "\(a) < 'label5'",
                ])
            case .boolean:
                return random.pick(["\(a) == YES", "\(a) == NO", "\(a) != nil"])
            case .date:
                return random.pick([
                    "\(a) < date('2001-06-01T00:00:00Z')", "\(a) > date(0)", "\(a) != nil",
                ])
            default:
                return random.pick(["\(a) != nil", "\(a) == nil"])
            }
        }
        let shape = random.next(below: 100)
        guard let first = atom(&random) else { return nil }
        switch shape {
        case ..<60: return first
        case ..<80: return atom(&random).map { "\(first) AND \($0)" } ?? first
        case ..<92: return atom(&random).map { "(\(first) OR \($0))" } ?? first
        case ..<97: return "NOT (\(first))"
        default: return random.pick(["TRUEPREDICATE", "FALSEPREDICATE"])
        }
    }
}
