import Molt

/// An error as `--json` prints it, on standard output, instead of the command's report:
/// `{"error": {…}}`, with Core Data's code and its constant's name.
struct ErrorJSON: Encodable {
    struct Body: Encodable {
        let code: Int
        let codeName: String
        let message: String
        let file: String?
        let line: Int?
        let column: Int?
        let entity: String?
        let property: String?
        let recovery: String?
        let details: [String]
        /// The process's exit code.
        let exitCode: Int32
    }

    let error: Body

    init(_ error: MoltError) {
        self.error = Body(
            code: error.code.rawValue, codeName: error.code.name, message: error.message,
            file: error.location?.file, line: error.location?.line, column: error.location?.column,
            entity: error.entity, property: error.property, recovery: error.recovery, details: error.details,
            exitCode: ExitCodes.code(for: error))
    }
}
