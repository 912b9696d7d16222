public import MoltMapping
public import MoltModel

/// One migration of an upgrade: from one schema to the next, by inference (lightweight) or by
/// a mapping file (heavyweight), with the custom stage whose handlers run around it.
///
/// ```swift
/// for step in try upgrade.plan().steps {
///     print(step)          // "V2 → V3: heavyweight with V2-to-V3.xml"
/// }
/// ```
public struct UpgradeStep: Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The mapping is inferred (``/MoltMapping/MappingInference``) and run by ``LightweightMigration``.
        case lightweight
        /// A mapping file's mapping, run by ``HeavyweightMigration``.
        case heavyweight
    }

    public let from: SchemaVersion
    public let to: SchemaVersion
    public let kind: Kind
    /// The mapping files of a heavyweight step, in the order they run: one, or several when
    /// the step is split into passes (files between the same two versions; see
    /// ``HeavyweightMigration/mappings``).
    public let mappingFiles: [UpgradeMappingFile]
    /// The (first) mapping file of a heavyweight step.
    public var mappingFile: UpgradeMappingFile? { mappingFiles.first }
    /// The mappings the step runs, one per pass: the files', or the inferred one.
    public let mappings: [MappingModel]
    /// The (first) mapping the step runs.
    public var mapping: MappingModel { mappings[0] }
    /// The models the step migrates between.
    public let sourceModel: ObjectModel
    public let destinationModel: ObjectModel
    /// The stage whose handlers run around this step.
    public let stage: UpgradeStage?
    /// The stage's `willMigrate` completed in an earlier, interrupted run, so it does not run
    /// again.
    public internal(set) var willMigrateAlreadyDone = false
    /// What the step does not carry into its destination version (``DiscardSurvey``): counted
    /// in the store for the first step of ``StoreUpgrade/plan()``, uncounted otherwise.
    public internal(set) var discards: [DiscardedData] = []
    /// How the step would run (``MigrationPlan``), as ``StoreUpgrade/plan()`` forecasts it from
    /// the models, the mapping files, the policies and the store as it is now. The run plans
    /// each step again when it reaches it. Nil in a report of a run.
    public internal(set) var plan: MigrationPlan?

    init(
        from: SchemaVersion, to: SchemaVersion, kind: Kind, mappingFiles: [UpgradeMappingFile],
        sourceModel: ObjectModel, destinationModel: ObjectModel, stage: UpgradeStage?
    ) {
        self.init(
            from: from, to: to, kind: kind, mappingFiles: mappingFiles, mappings: mappingFiles.map(\.mapping),
            sourceModel: sourceModel, destinationModel: destinationModel, stage: stage)
    }

    init(
        from: SchemaVersion, to: SchemaVersion, kind: Kind, inferred mapping: MappingModel, sourceModel: ObjectModel,
        destinationModel: ObjectModel, stage: UpgradeStage?
    ) {
        self.init(
            from: from, to: to, kind: kind, mappingFiles: [], mappings: [mapping], sourceModel: sourceModel,
            destinationModel: destinationModel, stage: stage)
    }

    private init(
        from: SchemaVersion, to: SchemaVersion, kind: Kind, mappingFiles: [UpgradeMappingFile],
        mappings: [MappingModel], sourceModel: ObjectModel, destinationModel: ObjectModel, stage: UpgradeStage?
    ) {
        self.from = from
        self.to = to
        self.kind = kind
        self.mappingFiles = mappingFiles
        self.mappings = mappings
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        self.stage = stage
    }

    /// Every pass's entity mappings together: what the step reads, for the survey of what it
    /// discards.
    var surveyedMapping: MappingModel {
        guard mappings.count > 1 else { return mapping }
        var combined = mapping
        combined.entityMappings = mappings.flatMap(\.entityMappings)
        return combined
    }

    /// "V1 → V2: lightweight", "V2 → V3: heavyweight with V2-to-V3.xml; stage V2 → V3 (willMigrate, didMigrate)",
    /// "V3 → V4: heavyweight in 2 passes: V3-to-V4.1.xml, then V3-to-V4.2.xml".
    public var description: String {
        [versionsAndKind, stageText].compactMap { $0 }.joined(separator: "; ")
    }

    /// The step in one line, as `molt upgrade --plan` prints it without `--verbose`: the
    /// versions, the kind and files, the forecast route, the stage, and what the step discards
    /// (without the reasons, which ``description`` of each ``DiscardedData`` gives).
    ///
    /// "App 3 → App 4: lightweight, in place; discards 1 value of Post.legacyCode, 2 Tag objects".
    public var summary: String {
        var parts = [versionsAndKind + (plan.map { ", \($0.route.rawValue)" } ?? "")]
        if let stageText { parts.append(stageText) }
        let certain =
            discards.filter { $0.policy == nil }.map(\.subject)
            + (plan?.contents.discarded.map(\.what) ?? [])
        if !certain.isEmpty { parts.append("discards \(certain.joined(separator: ", "))") }
        let policies = discards.filter { $0.policy != nil }
        if !policies.isEmpty {
            // Not "discards": a policy's code may carry them, which Molt cannot see.
            let subjects = policies.map { "\($0.subject) (\($0.policy ?? ""))" }
            parts.append("left to policies: \(subjects.joined(separator: ", "))")
        }
        return parts.joined(separator: "; ")
    }

    /// "V2 → V3: heavyweight with V2-to-V3.xml".
    private var versionsAndKind: String {
        var text = "\(sourceModel.name ?? from.name) → \(destinationModel.name ?? to.name): \(kind.rawValue)"
        if mappingFiles.count > 1 {
            text += " in \(mappingFiles.count) passes: \(mappingFiles.map(\.name).joined(separator: ", then "))"
        } else if let mappingFile {
            text += " with \(mappingFile.name)"
        }
        return text
    }

    /// "stage V2 → V3 (willMigrate, didMigrate)", or nil without a stage.
    private var stageText: String? {
        guard let stage else { return nil }
        let phases = stage.phases.map { phase in
            phase == .willMigrate && willMigrateAlreadyDone ? "willMigrate already done" : phase.rawValue
        }
        return "stage \(stage.name)\(phases.isEmpty ? "" : " (\(phases.joined(separator: ", ")))")"
    }
}

/// A mapping file the plan does not use, and why.
///
/// ```swift
/// for unused in plan.unusedMappingFiles {
///     print(unused)        // "3-2.xml (V3 → V2): not used: goes from V3 back to V2"
/// }
/// ```
public struct UnusedMappingFile: Sendable, Hashable, CustomStringConvertible {
    public let file: UpgradeMappingFile
    public let from: String
    public let to: String
    /// "goes from V3 back to V2", "not on the path from V1 to V4".
    public let reason: String

    public var description: String { "\(file.name) (\(from) → \(to)): not used: \(reason)" }
}

/// What an upgrade will do, worked out without touching the store: the store's version, the
/// destination, and the steps in order. ``StoreUpgrade/plan()`` makes one; `molt upgrade
/// --plan` prints it.
///
/// ```swift
/// let plan = try upgrade.plan()
/// if plan.isUpToDate { print("already at \(plan.destination)") }
/// plan.lines.forEach { print($0) }
/// ```
public struct UpgradePlan: Sendable, CustomStringConvertible {
    /// The schema the store is at.
    public let storeVersion: SchemaVersion
    /// The schema the upgrade goes to.
    public let destination: SchemaVersion
    /// The destination version's name as asked for (or the current version's).
    public let destinationName: String
    /// The steps, in order. Empty when the store is already at the destination.
    public internal(set) var steps: [UpgradeStep]
    /// How versions were ordered.
    public let order: VersionOrder
    /// Where the order came from, for people: "from the names: Xcode's sequence (App, App 2,
    /// …, App 4)", "from the mapping files", "as listed (…)".
    public let orderSource: String
    /// Mapping files the plan does not use, with the reason.
    public let unusedMappingFiles: [UnusedMappingFile]
    /// A stage whose `didMigrate` an interrupted upgrade left to run: it runs first.
    public internal(set) var pendingDidMigrate: UpgradeStage?
    /// Whether an interrupted migration left files beside the store (they are finished or
    /// removed before the upgrade starts, which may change the store's version).
    public internal(set) var interruptedMigration = false
    /// Another migration of the store running while the plan was made: the upgrade waits for
    /// it (or stops), and then plans from the store as that run leaves it.
    public internal(set) var runningMigration: RunningMigration?
    /// Whether the store matched no version given and the plan starts from its embedded model
    /// (``StoreUpgrade/allowsEmbeddedSourceModel``).
    public internal(set) var usesEmbeddedSourceModel = false

    /// Whether there is nothing to migrate.
    public var isUpToDate: Bool { steps.isEmpty }

    /// The forecast in detail: each step followed by its route and reason, each pass's relate
    /// strategies, the store contents it keeps or discards, and what it discards with the
    /// reasons (`molt upgrade --plan --verbose`).
    public var lines: [String] { lines(detailed: true) }

    /// The forecast with one line a step (``UpgradeStep/summary``), so that the shape of a long
    /// upgrade shows at a glance (`molt upgrade --plan`); ``lines`` has the detail.
    public var summaryLines: [String] { lines(detailed: false) }

    private func lines(detailed: Bool) -> [String] {
        var lines: [String] = []
        if let runningMigration {
            lines.append(
                "Note: \(runningMigration); this plan is for the store as it is now. An upgrade waits for it (--wait) or stops, and then plans again."
            )
        }
        if interruptedMigration {
            lines.append(
                "An interrupted migration left files beside the store: they are finished or removed first, which may change this plan."
            )
        }
        if usesEmbeddedSourceModel {
            lines.append(
                "No version given matches the store: using the store's embedded model, whose hashes match the store.")
        }
        let from = storeVersion.description
        if steps.isEmpty {
            lines.append("The store is at \(from): already at \(destinationName), nothing to migrate.")
        } else {
            lines.append(
                "The store is at \(from); \(steps.count) step\(steps.count == 1 ? "" : "s") to \(destinationName) (version order: \(orderSource)):"
            )
        }
        if let pendingDidMigrate {
            lines.append(
                "  first: the didMigrate handler of stage \(pendingDidMigrate.name) (an earlier upgrade stopped before it)"
            )
        }
        for (offset, step) in steps.enumerated() {
            guard detailed else {
                lines.append("  \(offset + 1). \(step.summary)")
                continue
            }
            lines.append("  \(offset + 1). \(step)")
            if let plan = step.plan {
                lines += plan.description.split(separator: "\n").map { "       \($0)" }
            }
            for discarded in step.discards {
                lines.append("       \(discarded.policy == nil ? "discards" : "may discard") \(discarded)")
            }
        }
        for unused in unusedMappingFiles {
            lines.append("  \(unused)")
        }
        return lines
    }

    public var description: String { lines.joined(separator: "\n") }
}
