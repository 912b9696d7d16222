internal import MoltCore
internal import MoltMapping

/// The errors of upgrade planning, each saying what to do.
enum UpgradeErrors {
    static let giveTheOrder =
        "Give the order of the versions: a file versions.txt in the mappings folder listing every version, oldest first, one per line (VersionOrder.explicit in the library), or --order-by-name (VersionOrder.byName) when the names sort in release order."

    /// The known order does not settle a question the plan depends on.
    static func orderNeeded(_ what: String) -> MoltError {
        MoltError(.migration, "the order of the model versions is not known: \(what)", recovery: giveTheOrder)
    }

    /// "the store is at V1", or "the upgrade has reached V2 (the store is at V1)".
    static func whereAt(_ current: String, store: String) -> String {
        current == store ? "the store is at \(store)" : "the upgrade has reached \(current) (the store is at \(store))"
    }

    /// Several mapping files for one pair of versions.
    static func ambiguous(_ files: [UpgradeMappingFile], from: String, to: String) -> MoltError {
        MoltError(
            .migration,
            "\(files.count) mapping files go from \(from) to \(to): \(files.map(\.name).joined(separator: ", ")); Molt cannot choose",
            location: files.first.map { SourceLocation(file: $0.path) },
            recovery: "Keep one mapping file per pair of versions in the mappings folder.",
            details: files.map(\.path))
    }

    /// A step with no mapping file that cannot be inferred (Core Data's 134140).
    static func missingMapping(from: String, to: String, reasons: [InferenceReason], stage: UpgradeStage?) -> MoltError
    {
        let why = reasons.first.map { ": \($0)" } ?? ""
        let more = reasons.count > 1 ? " (and \(reasons.count - 1) more)" : ""
        let intro =
            stage.map { "the stage \($0.name) must be one step, but no mapping file goes from \(from) to \(to)" }
            ?? "no mapping file goes from \(from) to \(to)"
        return MoltError(
            .missingMappingModel,
            "\(intro), and the mapping cannot be inferred\(why)\(more)",
            recovery:
                "Write a mapping file from \"\(from)\" to \"\(to)\" and put it in the mappings folder (`molt infer --from MODEL --from-version \"\(from)\" --to MODEL --to-version \"\(to)\"` prints a starting point), or change the model as the reasons say.",
            details: reasons.map(\.description))
    }

    /// The destination comes before the store's version (134530).
    static func newerThanDestination(store: String, destination: String, path: String?) -> MoltError {
        MoltError(
            .storeNewerThanDestination,
            "the store is at \(store), which comes after \(destination); Molt never migrates backwards",
            location: path.map { SourceLocation(file: $0) },
            recovery: "Upgrade to \(store) or a later version, or open the store with the app version that made it.")
    }

    /// A problem with a custom stage.
    static func stage(_ stage: UpgradeStage, _ message: String, recovery: String? = nil) -> MoltError {
        MoltError(.migration, "the upgrade stage \(stage.name): \(message)", recovery: recovery)
    }
}
