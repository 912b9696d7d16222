internal import Foundation
internal import MoltModel

extension MigrationReport: CustomStringConvertible {
    /// The report as `molt migrate` prints it, without the store's path: the route and its
    /// reason, each entity mapping's objects read and made and how its relationships were
    /// set, what policies deleted, the objects of the new store, and what was not carried.
    ///
    /// ```swift
    /// let report = try migration.run()
    /// print(report)
    /// ```
    public var description: String { summaryLines.joined(separator: "\n") }

    /// ``description``'s lines.
    public var summaryLines: [String] {
        var lines = [headline]
        guard !alreadyMigrated else { return lines }
        if let plan { lines.append("Route: \(plan.route.rawValue) (\(plan.reason)).") }
        if route == .sqlOnCopy {
            lines.append("The mapping needed no object loaded: it was run as SQL over a copy of the store.")
        }
        if passes > 1 { lines.append("The step ran in \(passes) passes, one per mapping file, into one new store.") }
        if route == .inPlace || inPlaceObstacle != nil {
            lines.append(
                inPlace
                    ? "The inferred mapping was applied in place."
                    : "The inferred mapping could not be applied in place (\(inPlaceObstacle ?? "")); the store was copied."
            )
        }
        lines.append("Entity mappings:")
        lines += mappingTable
        if deletedObjects > 0 {
            lines.append(
                "Policies deleted \(deletedObjects) destination object\(deletedObjects == 1 ? "" : "s") (delete rules applied)."
            )
        }
        if deletedSourceObjects > 0 {
            lines.append(
                "Policies deleted \(deletedSourceObjects) source object\(deletedSourceObjects == 1 ? "" : "s") from the migration's source context (delete rules applied): not migrated; the source store is unchanged."
            )
        }
        lines.append("Objects in the \(dryRun ? "migrated copy" : "new store"):")
        lines += TextTable.lines(
            [["ENTITY", "OBJECTS"]]
                + destinationCounts.keys.sorted(by: NameOrder.precedes).map { [$0, String(destinationCounts[$0]!)] })
        lines += DiscardSummary.lines(discarded, contents: contents, into: destinationModelName, dryRun: dryRun)
        if let externalFiles {
            lines.append(
                "External data: the \(dryRun ? "migrated copy" : "new store") refers to \(externalFiles) file\(externalFiles == 1 ? "" : "s") in _EXTERNAL_DATA."
            )
        }
        if let backup { lines.append("The old store is kept as \(backup)") }
        return lines
    }

    /// The run in one sentence.
    private var headline: String {
        let from = (sourceModelName.map { " from \($0)" } ?? "") + (destinationModelName.map { " to \($0)" } ?? "")
        if alreadyMigrated { return "The store was already at the destination version: nothing to migrate." }
        if dryRun { return "Dry run\(from): the store was not changed." }
        return "Migrated\(from) in \(String(format: "%.2f", duration)) s."
    }

    /// Each entity mapping's objects read and made (by pass when there are several), and, on
    /// the object-by-object route, how its relationships were set.
    package var mappingTable: [String] {
        let related = plan?.route == .objects
        let head = (passes > 1 ? ["PASS"] : []) + ["MAPPING", "READ", "MADE"] + (related ? ["RELATED"] : [])
        return TextTable.lines(
            [head]
                + mappings.map { count in
                    (passes > 1 ? [String(count.pass)] : [])
                        + [count.mapping, String(count.sourceObjects), String(count.destinationObjects)]
                        + (related ? [relatedSummary(pass: count.pass, mapping: count.mapping)] : [])
                })
    }

    /// How a mapping's relationships were set (``RelateOutcome``): as planned, or as the relate
    /// pass fell back, with the to-ones whose keys went in with each new row; "-" when there
    /// was nothing to set.
    package func relatedSummary(pass: Int, mapping: String) -> String {
        guard let outcome = related.first(where: { $0.pass == pass && $0.mapping == mapping }),
            outcome.actual != .nothing
        else { return "-" }
        let withRows =
            outcome.keysAtInsert.isEmpty || outcome.actual == .objectByObject
            ? "" : " (\(outcome.keysAtInsert.joined(separator: ", ")) with each new row)"
        return outcome.actual.rawValue + withRows
    }
}
