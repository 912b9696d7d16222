import Foundation

/// The entity-migration policies and value transformers of a target's files: each policy with
/// the hooks its code overrides, and every method that looks like a hook but is not one.
struct PolicyCatalog {
    /// The hooks of `EntityMigrationPolicy`, by Core Data's Swift spellings.
    static let hooks: [(name: String, labels: [String])] = [
        ("begin", ["_", "with"]),
        ("createDestinationInstances", ["forSource", "in", "manager"]),
        ("endInstanceCreation", ["forMapping", "manager"]),
        ("createRelationships", ["forDestination", "in", "manager"]),
        ("endRelationshipCreation", ["forMapping", "manager"]),
        ("performCustomValidation", ["forMapping", "manager"]),
        ("end", ["_", "manager"]),
        ("call", ["_", "arguments", "manager"]),
    ]

    struct Policy {
        let declaration: TypeDeclaration
        /// The hook names it overrides, its superclasses' included.
        let hooks: [String]
    }

    /// A method of a policy that the migration would never call, though it looks like a hook.
    struct Problem: CustomStringConvertible {
        let file: String
        let line: Int
        let column: Int
        let policy: String
        let method: String
        let hook: String

        var description: String {
            let what =
                method == hook
                ? "has a hook's name but no 'override', so the migration would never call it; write 'override func \(hook)'"
                : "is not a hook of EntityMigrationPolicy, so the migration would never call it; did you mean 'override func \(hook)'?"
            return "\(file):\(line):\(column): error: \(policy).\(method) \(what)"
        }
    }

    private(set) var policies: [Policy] = []
    private(set) var transformers: [String] = []
    private(set) var problems: [Problem] = []

    init(_ declarations: [TypeDeclaration]) {
        let classes = declarations.filter { $0.kind == .classType }
        var byName: [String: TypeDeclaration] = [:]
        for declaration in classes where byName[declaration.name] == nil { byName[declaration.name] = declaration }
        var hooksOf: [String: [String]] = [:]
        // A subclass of EntityMigrationPolicy, or of a policy found here (in any order).
        func hooks(_ declaration: TypeDeclaration, seen: Set<String> = []) -> [String]? {
            if let known = hooksOf[declaration.name] { return known }
            guard let superclass = declaration.inherits.first, !seen.contains(declaration.name) else { return nil }
            let inherited: [String]
            if Self.names(superclass, "EntityMigrationPolicy") {
                inherited = []
            } else if let parent = byName[Self.unqualified(superclass)],
                let parentHooks = hooks(parent, seen: seen.union([declaration.name]))
            {
                inherited = parentHooks
            } else {
                return nil
            }
            // A hook is counted when the scan finds its `override func`, and also when the body
            // as written has `func <hook>` anywhere the scan did not see (a literal it misread,
            // say): listing a hook the policy lacks only keeps the slower, always correct route,
            // while missing one would leave the policy's own code uncalled.
            let own =
                declaration.methods.filter { $0.overrides && !$0.isStatic }.map(\.name)
                + Self.hooks.map(\.name).filter { Self.declaresFunction($0, in: declaration.rawBody) }
            let all = Self.hooks.map(\.name).filter { inherited.contains($0) || own.contains($0) }
            hooksOf[declaration.name] = all
            return all
        }
        for declaration in classes {
            guard let found = hooks(declaration) else { continue }
            problems += Self.problems(in: declaration)
            if !declaration.isPrivate, !declaration.isGeneric,
                !policies.contains(where: { $0.declaration.name == declaration.name })
            {
                policies.append(Policy(declaration: declaration, hooks: found))
            }
        }
        policies.sort { $0.declaration.name < $1.declaration.name }
        for declaration in declarations where !declaration.isPrivate && !declaration.isGeneric {
            if declaration.inherits.contains(where: { Self.names($0, "AttributeValueTransformer") }),
                !transformers.contains(declaration.name)
            {
                transformers.append(declaration.name)
            }
        }
        transformers.sort()
    }

    /// The methods of a policy that look like hooks (a hook's name in other letters cases or
    /// with other labels, or a long name one or two letters from a hook's) but do not override
    /// one.
    static func problems(in declaration: TypeDeclaration) -> [Problem] {
        declaration.methods.compactMap { method in
            guard !method.overrides, !method.isStatic, let hook = nearestHook(to: method) else { return nil }
            return Problem(
                file: declaration.file, line: method.line, column: method.column, policy: declaration.name,
                method: method.signature, hook: "\(hook.name)(\(hook.labels.map { "\($0):" }.joined()))")
        }
    }

    static func nearestHook(to method: TypeDeclaration.Method) -> (name: String, labels: [String])? {
        let name = method.name.lowercased()
        if let same = hooks.first(where: { $0.name.lowercased() == name }) { return same }
        guard name.count >= 8 else { return nil }
        return hooks.filter { $0.name.count >= 8 }
            .map { (hook: $0, distance: editDistance(name, $0.name.lowercased())) }
            .filter { $0.distance <= 2 }
            .min { $0.distance < $1.distance }?.hook
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// Whether `text` has `func name(` or `func name<`, as a whole word.
    static func declaresFunction(_ name: String, in text: String) -> Bool {
        text.range(of: "\\bfunc\\s+\(name)\\s*[(<]", options: .regularExpression) != nil
    }

    /// Whether `name`, bare or with a module prefix, is `type`.
    static func names(_ name: String, _ type: String) -> Bool {
        name == type || name.hasSuffix(".\(type)")
    }

    static func unqualified(_ name: String) -> String {
        String(name.split(separator: ".").last ?? Substring(name))
    }
}
