import Foundation
import MoltMapping
@_spi(RouteSwitches) import MoltMigration
import MoltModel
import MoltTestSupport
import Testing

/// Copies of one store migrated object by object (the reference) and, each compared with it
/// row by row, with the relate pass in SQL where it may and in batches; the copy pass object
/// by object in all three. What the suites on policies' rows and deleted sources share.
enum RelateRouteRuns {
    /// The outcome of each comparison, "in SQL" first, then "in batches"; a run that differs
    /// from the reference is recorded as an issue against `label` and stops the test.
    static func compare(
        _ original: URL, in folder: TemporaryDirectory, source: ObjectModel, destination: ObjectModel,
        mapping: MappingModel, batchSize: Int, label: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> [EquivalentRuns.Outcome] {
        var reference = MigrationOptions()
        reference.allowsSQLOnCopy = false
        reference.allowsRelateInSQL = false
        reference.allowsRelateInBatches = false
        var inSQL = MigrationOptions()
        inSQL.allowsSQLOnCopy = false
        var inBatches = inSQL
        inBatches.allowsRelateInSQL = false
        inBatches.batchSize = batchSize
        var runs = EquivalentRuns(
            result: { try EquivalentRuns.dump($0, destination) }, unmigrated: { try EquivalentRuns.dump($0, source) })
        runs.sameFailure = { "\($0)" == "\($1)" }
        let migrate = { (options: MigrationOptions) in
            { (store: URL) in
                try HeavyweightMigration(
                    store: store, source: source, destination: destination, mapping: mapping, options: options
                ).run()
            }
        }
        return try [("in SQL", inSQL), ("in batches", inBatches)].map { name, options in
            try #require(
                try runs.compare(
                    original, in: folder, expected: .init("object by object", migrate(reference)),
                    actual: .init(name, migrate(options)), label: "\(label) \(name)", sourceLocation: sourceLocation),
                sourceLocation: sourceLocation)
        }
    }
}
