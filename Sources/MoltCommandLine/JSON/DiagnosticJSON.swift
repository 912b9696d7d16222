import Molt

/// What `check-model --json` and `check-mapping --json` print: every diagnostic, with counts.
struct CheckJSON: Encodable {
    struct Item: Encodable {
        let severity: String
        let message: String
        let file: String?
        let line: Int?
        let column: Int?
        let entity: String?
        let property: String?
        /// What to do instead, when the check says.
        let hint: String?
        /// The rule broken (`cloudkit.…`, `production.…`), when the check names one.
        let rule: String?

        init(_ diagnostic: Diagnostic) {
            severity = "\(diagnostic.severity)"
            message = diagnostic.message
            file = diagnostic.location?.file
            line = diagnostic.location?.line
            column = diagnostic.location?.column
            entity = diagnostic.entity
            property = diagnostic.property
            hint = diagnostic.hint
            rule = diagnostic.rule
        }
    }

    /// What `check-model` checked for CloudKit.
    struct CloudKit: Encodable {
        /// The versions CloudKit's rules were checked in.
        let rulesChecked: [String]
        /// `--production-version`, when given.
        let productionVersion: String?
        /// The versions after it, each compared with it.
        let checkedAgainstProduction: [String]
    }

    /// What was checked: the model or mapping files.
    let checked: [String]
    let errors: Int
    let warnings: Int
    /// Whether no error was found (the exit code is 0).
    let passed: Bool
    let diagnostics: [Item]
    /// Only when CloudKit's rules or the production schema were checked.
    let cloudKit: CloudKit?

    init(checked: [String], diagnostics: [Diagnostic], cloudKit: CloudKit? = nil) {
        self.checked = checked
        self.cloudKit = cloudKit
        errors = diagnostics.errors.count
        warnings = diagnostics.warnings.count
        passed = !diagnostics.hasErrors
        self.diagnostics = diagnostics.map(Item.init)
    }
}
