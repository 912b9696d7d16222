internal import Foundation

extension UpgradeReport: CustomStringConvertible {
    /// The report as `molt upgrade` prints it, without the store's path: the versions, one
    /// line per step (versions, kind, mapping files, route, seconds), then what each step did
    /// not carry.
    ///
    /// ```swift
    /// let report = try upgrade.run()
    /// print(report)
    /// ```
    public var description: String { summaryLines.joined(separator: "\n") }

    /// ``description``'s lines.
    public var summaryLines: [String] {
        guard !wasUpToDate else { return ["The store is at \(destination): nothing to upgrade."] }
        let seconds = String(format: "%.2f", duration)
        let count = "\(steps.count) step\(steps.count == 1 ? "" : "s")"
        var lines = [
            dryRun
                ? "Dry run: the store would go from \(storeVersion) to \(destination) in \(count) (\(seconds) s); it was not changed."
                : "Upgraded from \(storeVersion) to \(destination) in \(count) (\(seconds) s)."
        ]
        lines += stepTable
        for (offset, entry) in steps.enumerated()
        where !entry.migration.discarded.isEmpty || !entry.migration.contents.isEmpty {
            lines.append("Step \(offset + 1):")
            lines += DiscardSummary.lines(
                entry.migration.discarded, contents: entry.migration.contents,
                into: entry.step.destinationModel.name, dryRun: dryRun, indent: "  ")
        }
        if steps.allSatisfy({ $0.migration.discarded.isEmpty && $0.migration.contents.discarded.isEmpty }) {
            lines.append("Discarded: nothing (every object, value and link was carried to \(destination)).")
        }
        if let backup { lines.append("The store as it was is kept as \(backup)") }
        return lines
    }

    /// One row per step: its number, versions, kind, mapping files, route and seconds.
    package var stepTable: [String] {
        TextTable.lines(
            [["STEP", "FROM", "TO", "KIND", "MAPPING", "HOW", "SECONDS"]]
                + steps.enumerated().map { offset, entry in
                    [
                        String(offset + 1), entry.step.sourceModel.name ?? entry.step.from.name,
                        entry.step.destinationModel.name ?? entry.step.to.name, entry.step.kind.rawValue,
                        entry.step.mappingFiles.isEmpty
                            ? "inferred" : entry.step.mappingFiles.map(\.name).joined(separator: " + "),
                        entry.migration.plan?.route.rawValue ?? (entry.inPlace ? "in place" : "copied"),
                        String(format: "%.2f", entry.duration),
                    ]
                })
    }
}
