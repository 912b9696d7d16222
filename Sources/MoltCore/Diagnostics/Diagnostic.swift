/// A problem found while checking an input, reported as a value so that a checker can
/// collect every problem before it stops (compare a compiler's list of errors).
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How serious a diagnostic is. Only errors make a check fail.
    public enum Severity: String, Sendable, Hashable, Comparable, CaseIterable {
        case note, warning, error

        public static func < (a: Severity, b: Severity) -> Bool {
            let order: [Severity] = [.note, .warning, .error]
            return order.firstIndex(of: a)! < order.firstIndex(of: b)!
        }
    }

    public var severity: Severity
    public var message: String
    public var location: SourceLocation?
    public var entity: String?
    public var property: String?
    /// What to do instead, when the message alone does not say (printed on a line of its own).
    public var hint: String?
    /// A short, stable name of the rule broken (`cloudkit.deny-delete-rule`), for tools that
    /// sort or filter diagnostics; nil for the checks that have none.
    public var rule: String?

    public init(
        _ severity: Severity,
        _ message: String,
        location: SourceLocation? = nil,
        entity: String? = nil,
        property: String? = nil,
        hint: String? = nil,
        rule: String? = nil
    ) {
        self.severity = severity
        self.message = message
        self.location = location
        self.entity = entity
        self.property = property
        self.hint = hint
        self.rule = rule
    }

    /// `file:line: error: Entity.property: message`, as compilers print them (without the
    /// hint).
    public var description: String {
        var parts: [String] = []
        if let location { parts.append(location.description) }
        parts.append(severity.rawValue)
        switch (entity, property) {
        case (let entity?, let property?): parts.append("\(entity).\(property)")
        case (let entity?, nil): parts.append(entity)
        default: break
        }
        parts.append(message)
        return parts.joined(separator: ": ")
    }
}

extension Array where Element == Diagnostic {
    /// The diagnostics whose severity is ``Diagnostic/Severity/error``.
    public var errors: [Diagnostic] { filter { $0.severity == .error } }
    /// The diagnostics whose severity is ``Diagnostic/Severity/warning``.
    public var warnings: [Diagnostic] { filter { $0.severity == .warning } }
    /// Whether any diagnostic is an error.
    public var hasErrors: Bool { contains { $0.severity == .error } }
}
