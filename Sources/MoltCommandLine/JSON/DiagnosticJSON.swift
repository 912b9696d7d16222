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

        init(_ diagnostic: Diagnostic) {
            severity = "\(diagnostic.severity)"
            message = diagnostic.message
            file = diagnostic.location?.file
            line = diagnostic.location?.line
            column = diagnostic.location?.column
            entity = diagnostic.entity
            property = diagnostic.property
        }
    }

    /// What was checked: the model or mapping files.
    let checked: [String]
    let errors: Int
    let warnings: Int
    /// Whether no error was found (the exit code is 0).
    let passed: Bool
    let diagnostics: [Item]

    init(checked: [String], diagnostics: [Diagnostic]) {
        self.checked = checked
        errors = diagnostics.errors.count
        warnings = diagnostics.warnings.count
        passed = !diagnostics.hasErrors
        self.diagnostics = diagnostics.map(Item.init)
    }
}
