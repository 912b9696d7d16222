public import Foundation
internal import MoltCore
internal import MoltMapping
internal import MoltStore

/// Works out the steps that take a store from its model version to a destination version,
/// through every version in between, without touching any store.
///
/// Versions are schemas (``SchemaVersion``): versions with identical entity hashes are one.
/// Mapping files are matched to the versions they connect by the hashes they record (see
/// ``UpgradeMappingFile``). The order of versions comes from ``VersionOrder``; by default the
/// names give it when they make it obvious (Xcode's `Name`, `Name 2`, …, or one stem with
/// numbers: ``VersionNameSequence``), and otherwise only mapping files do (source before
/// destination, transitively).
///
/// Rules, in order:
/// 1. The store at the destination: nothing to do.
/// 2. One mapping file from the store's version to the destination (and no stage in between):
///    one heavyweight step. Several mapping files between the same two versions are the passes
///    of one step (Core Data's multiple passes), run in the order the files are given
///    (``UpgradeMappingFile/readFolder(_:logger:)``: by name, numbers read as numbers, unless
///    `versions.txt` lists them: `PassOrder`).
/// 3. The destination before the store's version: error 134530, nothing is migrated backwards.
///    A destination other than the current version whose place the order cannot tell is an
///    error asking for the order (it may lie behind the store).
/// 4. Otherwise a walk from the store's version: at version C, stop first at the next stage's
///    `from` (a stage is always exactly one step, by its mapping file or by inference). Else,
///    of the mapping files starting at C and ending at or before that limit, take the one
///    reaching furthest (a heavyweight step). Else migrate lightweight to the nearest version
///    where a mapping file starts or ends (never jumping over one, the staged-migration lesson),
///    or to the limit: in one step when inference allows it, otherwise, when the order is
///    total, in the fewest inferable steps through the versions in between (each time the
///    furthest version that infers). A pair of consecutive versions that does not infer is
///    error 134140, naming the two versions and the reasons.
/// 5. With only the mapping-file order, whenever the walk needs to know where a version stands
///    (a mapping file that could lie between, a file going there and back), it stops with an
///    error asking for the order (`versions.txt` or name order). With no mapping files at all
///    the store migrates in one lightweight step, as Core Data does.
///
/// With a total order, a mapping file that goes backwards is never used (the plan lists it as
/// not used).
///
/// ```swift
/// let planner = UpgradePlanner(
///     versions: try UpgradeVersions(contentsOf: bundleURL),
///     mappingFiles: try UpgradeMappingFile.readFolder(mappingsURL),
///     order: .byName)
/// let plan = try planner.plan(from: "Model 3")          // to the current version
/// plan.lines.forEach { print($0) }
/// ```
public struct UpgradePlanner: Sendable {
    public let versions: UpgradeVersions
    public let mappingFiles: [UpgradeMappingFile]
    public let order: VersionOrder
    public let stages: [UpgradeStage]

    /// Files of the mappings folder that could not be read: each stops a plan that may need it
    /// (see ``UnreadableMappingFile``) and is listed as not used by any other.
    public let unreadableMappingFiles: [UnreadableMappingFile]

    public init(
        versions: UpgradeVersions, mappingFiles: [UpgradeMappingFile],
        unreadableMappingFiles: [UnreadableMappingFile] = [], order: VersionOrder = .automatic,
        stages: [UpgradeStage] = []
    ) {
        self.versions = versions
        self.mappingFiles = mappingFiles
        self.unreadableMappingFiles = unreadableMappingFiles
        self.order = order
        self.stages = stages
    }

    /// Plans from the version called `from` to the version called `to` (by default the current
    /// version).
    public func plan(from: String, to: String? = nil) throws -> UpgradePlan {
        let source = try versions.requireSchema(named: from, role: "the store's version")
        return try plan(from: source, to: to, storePath: nil)
    }

    /// Plans from the schema whose hashes are `storeHashes` (a store's); 134130 when no version
    /// has them. `storePath` names the store in messages.
    public func plan(storeHashes: [String: Data], storePath: String? = nil, to: String? = nil) throws -> UpgradePlan {
        try plan(from: storeSchema(hashes: storeHashes, storePath: storePath), to: to, storePath: storePath)
    }

    /// The schema with the store's hashes, or Core Data's 134130 naming the closest version and
    /// what differs.
    func storeSchema(hashes: [String: Data], storePath: String?) throws -> SchemaVersion {
        if let schema = versions.schema(matching: hashes) { return schema }
        let compared = versions.schemas.map { schema in
            (schema, StoreCompatibilityText(storeHashes: hashes, modelHashes: schema.hashes))
        }
        let closest = compared.min { $0.1.distance < $1.1.distance }!
        throw MoltError(
            .missingSourceModel,
            "no model version matches the store; closest is \(closest.0.description): \(closest.1.text)",
            location: storePath.map { SourceLocation(file: $0) },
            recovery:
                "The store was made with a model version Molt was not given (perhaps by a newer version of the app). Give the model that holds the store's version.",
            details: compared.map { "\($0.0.description): \($0.1.text)" })
    }

    func plan(from source: SchemaVersion, to: String?, storePath: String?) throws -> UpgradePlan {
        guard let destinationName = to ?? versions.currentVersionName else {
            throw MoltError(
                .fileReadNoSuchFile, "the model has several versions and none is marked current",
                recovery: "Name the destination version (--to).")
        }
        let destination = try versions.requireSchema(named: destinationName, role: "the destination")
        var run = try PlanRun(
            planner: self, source: source, destination: destination, destinationName: destinationName,
            storePath: storePath)
        var steps = try run.steps()
        let setAside = try unreadableFiles(notNeededBy: steps, run: run)
        try checkPolicies(of: steps)
        for index in steps.indices {
            steps[index].discards = DiscardSurvey(
                source: steps[index].sourceModel, destination: steps[index].destinationModel,
                mapping: steps[index].surveyedMapping
            ).items()
        }
        let used = Set(steps.flatMap(\.mappingFiles))
        var unused = run.unusable + setAside
        if !steps.isEmpty {
            for file in run.usable.flatMap({ group in group.passes.map { (file: $0, from: group.from, to: group.to) } })
            where !used.contains(file.file) {
                unused.append(
                    UnusedMappingFile(
                        file: file.file, from: run.name(file.from), to: run.name(file.to),
                        reason: "not on the path from \(source.name) to \(destinationName)"))
            }
        }
        return UpgradePlan(
            storeVersion: source, destination: destination, destinationName: destinationName, steps: steps,
            order: order, orderSource: order.source(for: versions), unusedMappingFiles: unused)
    }

    /// The unreadable files `steps` cannot need, as not used; throws the error of the first
    /// one they may need: one that declares no versions Molt knows, or two versions both within
    /// the upgrade's range of versions (it could be a step's mapping, a pass of one, or a way
    /// through other versions than the plan takes), as Core Data would have loaded it for a
    /// step it runs. A file is out of range only when the version order says so.
    private func unreadableFiles(notNeededBy steps: [UpgradeStep], run: PlanRun) throws -> [UnusedMappingFile] {
        var unused: [UnusedMappingFile] = []
        for file in unreadableMappingFiles {
            let from = file.sourceModelName.flatMap { versions.schema(named: $0) }
            let to = file.destinationModelName.flatMap { versions.schema(named: $0) }
            guard let from, let to, let fromIndex = versions.schemas.firstIndex(of: from),
                let toIndex = versions.schemas.firstIndex(of: to)
            else {
                guard steps.isEmpty else {
                    throw Self.needed(
                        file, because: "Molt cannot tell which versions it connects, so any step may need it")
                }
                continue
            }
            if !steps.isEmpty, !run.isOutsideRange(from: fromIndex, to: toIndex) {
                throw Self.needed(
                    file,
                    because:
                        "it connects \(run.name(fromIndex)) and \(run.name(toIndex)), within the upgrade from \(run.name(run.source)) to \(run.name(run.destination))"
                )
            }
            unused.append(
                UnusedMappingFile(
                    file: UpgradeMappingFile(
                        name: file.name,
                        mapping: MappingModel(
                            sourceModelName: file.sourceModelName, destinationModelName: file.destinationModelName,
                            entityMappings: []),
                        url: file.url),
                    from: run.name(fromIndex), to: run.name(toIndex),
                    reason: steps.isEmpty
                        ? "cannot be read (\(file.error.message)); the store is up to date"
                        : "cannot be read (\(file.error.message)); outside the upgrade from \(run.name(run.source)) to \(run.name(run.destination))"
                ))
        }
        return unused
    }

    private static func needed(_ file: UnreadableMappingFile, because reason: String) -> MoltError {
        var error = file.error
        error.message = "\(file.name) cannot be read, and the upgrade may need it (\(reason)): \(error.message)"
        if error.recovery == nil {
            error.recovery = "Fix the file, or move it out of the mappings folder if no step of this upgrade uses it."
        }
        return error
    }

    /// Every policy a heavyweight step's mapping names must be registered.
    private func checkPolicies(of steps: [UpgradeStep]) throws {
        for step in steps {
            for file in step.mappingFiles {
                for mapping in file.mapping.entityMappings {
                    guard let policy = mapping.policyName, mapping.kind.readsSource else { continue }
                    do {
                        _ = try PolicyRegistry.require(policy, mapping: mapping.name)
                    } catch let error as MoltError {
                        throw error.located(mapping.location ?? SourceLocation(file: file.path))
                    }
                }
            }
        }
    }
}

/// How a store's hashes differ from a version's, with a distance to find the closest.
struct StoreCompatibilityText {
    let text: String
    let distance: Int

    init(storeHashes: [String: Data], modelHashes: [String: Data]) {
        let compatibility = StoreCompatibility(storeHashes: storeHashes, modelHashes: modelHashes)
        text = compatibility.description
        if case .incompatible(let differing, let missing, let extra) = compatibility {
            distance = differing.count + missing.count + extra.count
        } else {
            distance = 0
        }
    }
}
