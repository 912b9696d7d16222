public import Molt

/// The counts of a ``MigrationReport`` that every route must agree on: per entity mapping
/// (by pass and name) the objects read and made, objects per entity in the source and the
/// destination, what was discarded (kind, count and policy, not the wording of the reason), the
/// passes, the objects policies deleted (from the new store and from the source context), and whether the store was found already migrated.
/// Timings, the plan and the route flags (`route`, `relatedInSQL`, `relatedInBatches`,
/// `inPlace`, `inPlaceObstacle`, `externalFiles`) are left out. A count of 0 counts as no
/// entry, so a route that lists an entity or mapping with nothing is not told apart from one
/// that leaves it out.
public struct ReportCounts: Sendable, Hashable {
    /// "pass N Name" → "read R, made M".
    public var mappings: [String: String]
    public var sourceCounts: [String: Int]
    public var destinationCounts: [String: Int]
    /// Each discarded item as "kind: count (policy)", sorted.
    public var discarded: [String]
    public var passes: Int
    public var deletedObjects: Int
    public var deletedSourceObjects: Int
    /// Whether the run found the store already migrated.
    public var alreadyMigrated: Bool

    /// The counts of `report`.
    public init(_ report: MigrationReport) {
        var mappings: [String: String] = [:]
        for count in report.mappings where count.sourceObjects != 0 || count.destinationObjects != 0 {
            mappings["pass \(count.pass) \(count.mapping)"] =
                "read \(count.sourceObjects), made \(count.destinationObjects)"
        }
        self.mappings = mappings
        sourceCounts = report.sourceCounts.filter { $0.value != 0 }
        destinationCounts = report.destinationCounts.filter { $0.value != 0 }
        discarded = report.discarded.filter { $0.count != 0 }.map { item in
            let kind: String =
                switch item.kind {
                case .objects(let entity): "objects of \(entity)"
                case .attributeValues(let entity, let attribute): "values of \(entity).\(attribute)"
                case .links(let entity, let relationship): "links of \(entity).\(relationship)"
                case .filteredObjects(let entity): "objects of \(entity) left out by filters"
                }
            return
                "\(kind): \(item.count.map(String.init) ?? "uncounted")\(item.policy.map { " (policy \($0))" } ?? "")"
        }.sorted()
        passes = report.passes
        deletedObjects = report.deletedObjects
        deletedSourceObjects = report.deletedSourceObjects
        alreadyMigrated = report.alreadyMigrated
    }

    /// The first way `self` differs from `expected`, in words; nil when they agree.
    public func difference(from expected: ReportCounts) -> String? {
        /// The first key whose value differs between `wanted` and `got`, in words.
        func compare<V: Equatable>(_ label: String, _ wanted: [String: V], _ got: [String: V]) -> String? {
            for key in Set(wanted.keys).union(got.keys).sorted() where wanted[key] != got[key] {
                let show = { (value: V?) in value.map { "\($0)" } ?? "none" }
                return "report \(label) \(key): \(show(wanted[key])) in the reference, \(show(got[key])) here"
            }
            return nil
        }
        if let difference = compare("mapping", expected.mappings, mappings) { return difference }
        if let difference = compare("source count of", expected.sourceCounts, sourceCounts) { return difference }
        if let difference = compare("destination count of", expected.destinationCounts, destinationCounts) {
            return difference
        }
        if expected.discarded != discarded {
            let missing = expected.discarded.filter { !discarded.contains($0) }
            let extra = discarded.filter { !expected.discarded.contains($0) }
            return "report discarded: only in the reference \(missing), only here \(extra)"
        }
        if expected.passes != passes { return "report passes: \(expected.passes) in the reference, \(passes) here" }
        if expected.deletedObjects != deletedObjects {
            return "report deleted objects: \(expected.deletedObjects) in the reference, \(deletedObjects) here"
        }
        if expected.deletedSourceObjects != deletedSourceObjects {
            return
                "report deleted source objects: \(expected.deletedSourceObjects) in the reference, \(deletedSourceObjects) here"
        }
        if expected.alreadyMigrated != alreadyMigrated {
            return "report already migrated: \(expected.alreadyMigrated) in the reference, \(alreadyMigrated) here"
        }
        return nil
    }
}
