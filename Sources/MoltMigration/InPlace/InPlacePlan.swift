import MoltCore
import MoltMapping
import MoltModel
import MoltSQLite
import MoltStore

/// Everything an in-place migration does, worked out from the two layouts and the mapping
/// before the store is touched. ``InPlaceMigration`` runs it.
///
/// - Link sets: each destination relationship's links, read from the source store first.
/// - Entity tables: kept as they are, kept with new columns (`ALTER TABLE … ADD COLUMN`,
///   then filled), or rebuilt: created under a temporary name, filled with `INSERT … SELECT`
///   from the source table, and renamed once the old tables are dropped.
/// - Join tables: kept, or rebuilt from their link set.
/// - Then indexes, `Z_PRIMARYKEY` and `Z_METADATA`.
///
/// Objects keep their primary keys; entity numbers change when entities come and go.
struct InPlacePlan {
    /// What happens to one destination table.
    enum TableStep {
        /// Unchanged; `additions` are new columns, each filled by its expression (NULL
        /// needs no filling), and `deletedKinds` rows of entities that are gone are removed.
        case keep(name: String, additions: [(column: ColumnLayout, value: String?)], deletedKinds: [Int])
        /// Built anew under `temporaryName` by `statements`, then renamed to `name`.
        case rebuild(name: String, temporaryName: String, statements: [String])

        var name: String {
            switch self {
            case .keep(let name, _, _), .rebuild(let name, _, _): name
            }
        }
    }

    let source: StoreLayout
    let destination: StoreLayout
    /// The mapping the plan runs, worked out once for the run.
    let resolver: MappingResolver
    var mapping: MappingModel { resolver.mappingModel }
    let correspondences: [EntityCorrespondence]
    let expressions: RowExpressions
    let linkSets: [LinkSet]
    /// Source entity number → its rank by name (the order objects are read in).
    let ranks: [Int: Int]
    /// Source entity number → the position of the entity mapping reading it.
    let mappingOrder: [Int: Int]
    /// Source entity number → destination entity number.
    let entityNumbers: [Int: Int]
    /// Destination entity tables, then join tables.
    let tables: [TableStep]
    /// Source tables (entity and join) to drop once the new ones are built.
    let droppedTables: [String]

    /// The correspondence whose source entity has `number`.
    func correspondence(sourceNumber number: Int) -> EntityCorrespondence? {
        correspondences.first { $0.source.number == number }
    }
}

extension InPlacePlan {
    /// Works out the plan, or throws ``InPlaceObstacle`` saying why the mapping cannot run in
    /// place.
    /// `resolver` is the run's, for the mapping between the two layouts' models.
    init(source: StoreLayout, destination: StoreLayout, resolver: MappingResolver, expressions: RowExpressions) throws {
        let correspondences = try CorrespondenceBuilder(
            source: source, destination: destination, resolver: resolver, expressions: expressions
        ).build()
        var entityNumbers: [Int: Int] = [:]
        var mappingOrder: [Int: Int] = [:]
        for correspondence in correspondences {
            entityNumbers[correspondence.source.number] = correspondence.destination.number
            mappingOrder[correspondence.source.number] = correspondence.mappingIndex
        }
        var ranks: [Int: Int] = [:]
        for (rank, entity) in source.entities.sorted(by: { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) })
            .enumerated()
        {
            ranks[entity.number] = rank
        }
        let linkSets = try LinkSetBuilder(
            source: source, destination: destination, correspondences: correspondences, entityNumbers: entityNumbers
        ).build()
        var builder = TableStepBuilder(
            source: source, destination: destination, correspondences: correspondences, expressions: expressions,
            linkSets: linkSets, entityNumbers: entityNumbers)
        let tables = try builder.build()
        let kept = Set(
            tables.compactMap { step -> String? in
                if case .keep(let name, _, _) = step { return name }
                return nil
            })
        let sourceTables = source.tables.map(\.name) + source.joinTables.map(\.name)
        self.init(
            source: source, destination: destination, resolver: resolver, correspondences: correspondences,
            expressions: expressions, linkSets: linkSets, ranks: ranks, mappingOrder: mappingOrder,
            entityNumbers: entityNumbers, tables: tables,
            droppedTables: sourceTables.filter { !kept.contains($0) })
    }
}
