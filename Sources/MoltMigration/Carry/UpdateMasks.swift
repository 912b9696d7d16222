internal import Foundation
internal import MoltCore
internal import MoltSQLite
internal import MoltStore

/// Rewrites the masks of changed properties that history keeps for each update
/// (`ACHANGE.ZCOLUMNS` where `ZCHANGETYPE` is 1) when an entity's columns change, through an
/// SQL function, as Core Data's in-place migrator does with its `NSPersistentHistoryMigrateUpdates`:
/// `molt_history_columns(source entity number, destination entity number, mask)` returns the
/// mask decoded with the source entity and encoded with the destination entity
/// (``MaskTranslation``). A NULL mask stays NULL (Core Data would write one with no bit set).
///
/// Only the updates of entity pairs whose masks change are rewritten, and counted.
struct UpdateMasks {
    /// A source entity and the destination entity its objects became, by number.
    struct Pair: Hashable {
        let source: Int
        let destination: Int
    }

    /// The SQL function's name.
    static let functionName = "molt_history_columns"

    let sourceLayout: StoreLayout
    let destinationLayout: StoreLayout
    /// Destination property → source property, for each pair whose entity mapping says
    /// (``MaskTranslation/origins(of:)``).
    let origins: [Pair: [String: String]]

    /// The translation of `pair`'s masks; nil when either entity is unknown.
    func translation(_ pair: Pair) -> MaskTranslation? {
        guard let source = sourceLayout.entity(number: pair.source),
            let destination = destinationLayout.entity(number: pair.destination)
        else { return nil }
        return MaskTranslation(
            source: HistoryColumnMask(source, model: sourceLayout.model),
            destination: HistoryColumnMask(destination, model: destinationLayout.model),
            origins: origins[pair] ?? [:])
    }

    /// Rewrites the masks of the updates of each pair's source entity (history still naming
    /// source entities), or with `fates`, of the changes that table gives the pair's
    /// destination entity (`temp.<fates>(change, entity)`); returns how many were rewritten.
    func rewrite(_ pairs: [Pair], fates: String? = nil, on connection: SQLiteConnection) throws -> Int {
        var translations: [Pair: MaskTranslation] = [:]
        for pair in Set(pairs) {
            guard let translation = translation(pair), translation.changesMasks else { continue }
            translations[pair] = translation
        }
        guard !translations.isEmpty else { return 0 }
        // Few distinct masks recur across many updates: each is translated once per pair (as
        // Core Data's function caches them too).
        let memo = Memo()
        try connection.registerFunction(Self.functionName, argumentCount: 3) { arguments in
            guard case .blob(let mask) = arguments[2] else { return arguments[2] }
            let pair = Pair(
                source: Int(arguments[0].integerValue ?? 0), destination: Int(arguments[1].integerValue ?? 0))
            guard let translation = translations[pair] else {
                throw MoltError(
                    .migration,
                    "\(Self.functionName): no translation of masks from entity \(pair.source) to entity \(pair.destination)"
                )
            }
            if let known = memo.results[pair]?[mask] { return .blob(known) }
            let result = translation.translate(mask)
            if memo.results[pair, default: [:]].count < Memo.limit { memo.results[pair, default: [:]][mask] = result }
            return .blob(result)
        }
        let changes = "main." + SQL.identifier(PersistentHistory.changeTable)
        var count = 0
        for pair in translations.keys.sorted(by: { ($0.source, $0.destination) < ($1.source, $1.destination) }) {
            let scope =
                fates.map {
                    "\"Z_PK\" IN (SELECT change FROM temp.\(SQL.identifier($0)) WHERE entity = \(pair.destination))"
                } ?? "1"
            try connection.execute(
                """
                UPDATE OR FAIL \(changes) SET "ZCOLUMNS" = \(Self.functionName)(\(pair.source), \(pair.destination), "ZCOLUMNS")
                WHERE "ZENTITY" = \(pair.source) AND "ZCHANGETYPE" = 1 AND "ZCOLUMNS" IS NOT NULL AND \(scope)
                """)
            count += connection.changes
        }
        return count
    }

    /// Translated masks by pair, for the SQL function (which runs on the statement's thread).
    private final class Memo {
        static let limit = 1_000
        var results: [Pair: [Data: Data]] = [:]
    }
}
