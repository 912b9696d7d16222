import Molt

/// `molt dump --history --json`: `{"history": [...]}`, one entry per change in key order;
/// `{"history": null, "note": "..."}` for a store without persistent history.
struct HistoryJSON: Encodable {
    /// One change (``HistoryChange``).
    struct Change: Encodable {
        /// The change's key (`ACHANGE.Z_PK`).
        let change: Int64
        /// Its transaction's key (`ZTRANSACTIONID`).
        let transaction: Int64
        /// `insert`, `update`, `delete` (or `type N` for a value Core Data does not write).
        let type: String
        let entity: String
        /// The object, as `molt dump` names objects: `Entity/pk`.
        let object: String
        /// For an update, the properties its mask names; empty otherwise.
        let properties: [String]
        /// True for an update whose mask is missing or does not fit its entity; absent otherwise.
        let maskUnreadable: Bool?

        init(_ change: HistoryChange) {
            self.change = change.change
            transaction = change.transaction
            type = change.kind.description
            entity = change.object.entity
            object = change.object.description
            properties = change.properties
            maskUnreadable = change.isMaskReadable ? nil : true
        }
    }

    let history: [Change]?
    let note: String?

    init(_ changes: [HistoryChange]?) {
        history = changes?.map(Change.init)
        note = changes == nil ? Self.noHistory : nil
    }

    static let noHistoryReason = "no ACHANGE table: it was never opened with history tracking on"
    static let noHistory = "the store has no persistent history (\(noHistoryReason))"

    enum CodingKeys: String, CodingKey { case history, note }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(history, forKey: .history)
        try container.encodeIfPresent(note, forKey: .note)
    }
}
