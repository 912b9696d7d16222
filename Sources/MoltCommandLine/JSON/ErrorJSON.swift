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
        /// The version the store is at when the error stopped an upgrade after some of its
        /// steps (they stay done); absent for other errors.
        let storeVersion: String?
        /// The process's exit code.
        let exitCode: Int32
    }

    let error: Body

    /// A usage error (a bad option, a missing argument): `code` 64 and `codeName` `EX_USAGE`,
    /// sysexits' name, since Core Data has none for it.
    init(usage message: String) {
        error = Body(
            code: Int(ExitCodes.usage), codeName: "EX_USAGE", message: message, file: nil, line: nil, column: nil,
            entity: nil, property: nil, recovery: "Run the command with --help to see its arguments.", details: [],
            storeVersion: nil, exitCode: ExitCodes.usage)
    }

    init(_ error: MoltError) {
        self.error = Body(
            code: error.code.rawValue, codeName: error.code.name, message: error.message,
            file: error.location?.file, line: error.location?.line, column: error.location?.column,
            entity: error.entity, property: error.property, recovery: error.recovery, details: error.details,
            storeVersion: error.storeVersion, exitCode: ExitCodes.code(for: error))
    }
}
