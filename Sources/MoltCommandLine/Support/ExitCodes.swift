import Molt

/// The exit codes `molt` documents (in `molt --help` and the documentation's "The molt command"
/// article), after BSD's sysexits.
enum ExitCodes {
    static let success: Int32 = 0
    static let checkFailed: Int32 = 1
    static let incompatibleStore: Int32 = 3
    static let inferenceImpossible: Int32 = 4
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let internalError: Int32 = 70
    static let cannotCreate: Int32 = 73
    static let ioError: Int32 = 74
    /// Try again later: another migration of the store is running (EX_TEMPFAIL).
    static let busy: Int32 = 75
    static let permission: Int32 = 77
    /// Cancelled by Ctrl-C (128 + SIGINT); another signal gives 128 + its number.
    static let cancelled: Int32 = 130

    /// The exit code for a library error.
    static func code(for error: MoltError) -> Int32 {
        switch error.code {
        case .fileReadNoSuchFile: noInput
        case .fileReadNoPermission, .fileWriteNoPermission: permission
        case .fileWriteFileExists: cannotCreate
        case .incompatibleVersionHash, .missingSourceModel, .missingMappingModel: incompatibleStore
        case .storeNewerThanDestination: incompatibleStore
        case .sqlite, .fileReadUnknown, .fileWriteUnknown, .persistentStoreOpen, .sourceStore, .destinationStore:
            ioError
        case .migrationCancelled: Interrupts.receivedSignal.map { 128 + $0 } ?? cancelled
        case .persistentStoreTimeout: busy
        case .inferredMapping: inferenceImpossible
        case .fileReadCorruptFile, .propertyListReadCorrupt, .invalidModel, .persistentStoreInvalidType, .validation:
            dataError
        default: dataError
        }
    }
}
