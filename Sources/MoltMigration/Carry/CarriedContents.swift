/// What a migration did with everything in the store besides its objects (Core Data's
/// bookkeeping, persistent history, CloudKit mirroring, metadata keys, tables no model
/// explains): kept as it was, rewritten to fit the new version, or discarded. The report
/// names each; a run says "nothing discarded" only when ``discarded`` is empty too.
public struct CarriedContents: Sendable, Equatable {
    /// One thing and what became of it.
    public struct Item: Sendable, Equatable, CustomStringConvertible {
        /// What it is: "persistent history", "table Audit", "metadata key NSStoreModelVersionChecksumKey".
        public var what: String
        /// How many rows, or why.
        public var detail: String

        public init(_ what: String, _ detail: String) {
            self.what = what
            self.detail = detail
        }

        public var description: String { detail.isEmpty ? what : "\(what) (\(detail))" }
    }

    /// Carried as it was.
    public var kept: [Item] = []
    /// Carried, changed to fit the new version (history renumbered, counters moved).
    public var rewritten: [Item] = []
    /// Not carried.
    public var discarded: [Item] = []

    public init() {}

    /// Whether nothing beyond the objects was found.
    public var isEmpty: Bool { kept.isEmpty && rewritten.isEmpty && discarded.isEmpty }

    /// The lines a report prints: "kept: …", "rewritten: …", "discarded: …".
    public var lines: [String] {
        kept.map { "kept: \($0)" } + rewritten.map { "rewritten: \($0)" } + discarded.map { "discarded: \($0)" }
    }
}
