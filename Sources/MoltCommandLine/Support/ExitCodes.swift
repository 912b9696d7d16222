import Molt

/// The exit codes `molt` documents, after BSD's sysexits: one per kind of failure, whichever
/// command fails. ``kinds`` is the one table: `molt --help` prints it, "The molt command"
/// article shows it (a test keeps the two equal), and ``code(for:)`` reads it.
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

    /// One kind of failure: its exit code, what it means, and the error codes (Core Data's,
    /// in `--json`'s `code` and `codeName`) that end a command with it.
    struct Kind {
        let exit: Int32
        let meaning: String
        let errors: [MoltError.Code]
    }

    static let kinds: [Kind] = [
        Kind(exit: success, meaning: "success", errors: []),
        Kind(
            exit: checkFailed,
            meaning:
                "a check found errors (check-model, check-mapping; CloudKit's rules and the production schema included) or a store or model version failed its check (verify)",
            errors: []),
        Kind(
            exit: incompatibleStore,
            meaning:
                "the store does not match the model, no model version matches it, a step of an upgrade has no mapping, a mapping file is for other versions, or the store is newer than the destination",
            errors: [.incompatibleVersionHash, .missingSourceModel, .missingMappingModel, .storeNewerThanDestination]),
        Kind(
            exit: inferenceImpossible, meaning: "the mapping cannot be inferred (infer; migrate without --mapping)",
            errors: [.inferredMapping]),
        Kind(exit: usage, meaning: "bad command-line usage (JSON code 64, EX_USAGE)", errors: []),
        Kind(
            exit: dataError,
            meaning:
                "bad input data: malformed XML or JSON, an invalid model or mapping, a file that is not a store, a -wal that is not the store's, a seed or objects breaking the model's rules, a policy that failed",
            errors: [
                .fileReadCorruptFile, .propertyListReadCorrupt, .coderReadCorrupt, .coderInvalidValue,
                .persistentStoreInvalidType, .invalidModel, .migration, .entityMigrationPolicy, .constraintConflict,
                .validation, .validationMultiple, .validationMissingMandatoryProperty,
                .validationRelationshipLacksMinimumCount, .validationRelationshipExceedsMaximumCount,
                .validationRelationshipDeniedDelete, .validationNumberTooLarge, .validationNumberTooSmall,
                .validationDateTooLate, .validationDateTooSoon, .validationStringTooLong, .validationStringTooShort,
                .validationStringPatternMatching,
            ]),
        Kind(
            exit: noInput,
            meaning: "an input file, or the model version named, does not exist (extract-model: no embedded model)",
            errors: [.fileReadNoSuchFile]),
        Kind(exit: internalError, meaning: "internal error (a bug in molt: please report it)", errors: []),
        Kind(exit: cannotCreate, meaning: "the output file already exists", errors: [.fileWriteFileExists]),
        Kind(
            exit: ioError,
            meaning:
                "I/O or SQLite error (a full disk, a store in use, a damaged store), or a store file with several names (hard links) that a migration would replace",
            errors: [
                .fileReadUnknown, .fileWriteUnknown, .persistentStoreOpen, .sourceStore, .destinationStore, .sqlite,
            ]),
        Kind(
            exit: busy, meaning: "another migration of the store is running: run again, or give --wait",
            errors: [.persistentStoreTimeout]),
        Kind(
            exit: permission, meaning: "permission denied: a file cannot be read, or a store or its folder written",
            errors: [.fileReadNoPermission, .fileWriteNoPermission]),
        Kind(
            exit: cancelled,
            meaning:
                "cancelled by Ctrl-C (SIGTERM gives 143, SIGHUP 129); migrate leaves the store unchanged, upgrade keeps each finished step (the store is at the last finished step's version, which the error names)",
            errors: [.migrationCancelled]),
    ]

    private static let exitByError: [Int: Int32] = {
        var table: [Int: Int32] = [:]
        for kind in kinds {
            for error in kind.errors { table[error.rawValue] = kind.exit }
        }
        return table
    }()

    /// The exit code for a library error: its kind's, from ``kinds`` (65, bad data, for a code
    /// no kind lists). A cancellation by a signal other than Ctrl-C gives 128 + the signal.
    static func code(for error: MoltError) -> Int32 {
        if error.code == .migrationCancelled, let signal = Interrupts.receivedSignal { return 128 + signal }
        return exitByError[error.code.rawValue] ?? dataError
    }

    /// The table as `molt --help` prints it, wrapped to `width` columns.
    static func helpText(width: Int = 78) -> String {
        var lines = ["Exit codes:"]
        for kind in kinds {
            let codes = kind.errors.isEmpty ? "" : " [\(list(kind.errors))]"
            let label = "  " + String(kind.exit).padding(toLength: 4, withPad: " ", startingAt: 0)
            lines += wrap(
                kind.meaning + codes, first: label, rest: String(repeating: " ", count: label.count), width: width)
        }
        lines.append("")
        lines.append("In brackets: the error codes (Core Data's) that --json reports as \"code\".")
        return lines.joined(separator: "\n")
    }

    /// The codes, Core Data's validation codes (1550 to 1680) as one range.
    static func list(_ errors: [MoltError.Code]) -> String {
        let validation = errors.filter { Self.validation.contains($0.rawValue) }
        var parts = errors.filter { !Self.validation.contains($0.rawValue) }.map { "\($0.rawValue)" }
        if !validation.isEmpty { parts.append("\(Self.validation.lowerBound)-\(Self.validation.upperBound)") }
        return parts.joined(separator: ", ")
    }

    /// Core Data's validation codes.
    static let validation = 1550...1680

    /// `text` in lines of at most `width` columns, the first starting with `first`, the others
    /// with `rest`.
    static func wrap(_ text: String, first: String, rest: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = first
        var empty = true
        for word in text.split(separator: " ") {
            if !empty && current.count + 1 + word.count > width {
                lines.append(current)
                current = rest
                empty = true
            }
            current += (empty ? "" : " ") + word
            empty = false
        }
        lines.append(current)
        return lines
    }
}
