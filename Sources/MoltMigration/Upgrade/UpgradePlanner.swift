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
/// Which files a plan may use, decided once per file:
/// - A file's two versions are the schemas whose hashes it records (by name only where its
///   hashes leave several), found once (`MappingFileMatcher`); every later check uses them.
/// - Several files between the same two schemas that name the same versions (or none) are the
///   passes of one step (Core Data's multiple passes), run in the order the files are given
///   (``UpgradeMappingFile/readFolder(_:logger:)``: by name, numbers read as numbers, unless
///   `versions.txt` lists them: `PassOrder`).
/// - Files between the same two schemas that name different versions (two versions with the
///   same hashes, or a file whose name says another version than its hashes) are alternatives:
///   one is used, the one whose names agree with its hashes, then the one from the version
///   listed first; the others are listed as not used, saying why.
/// - A file that records hashes no version has and names versions this model does not have
///   belongs to another model: it is listed as not used, as Core Data passes over it.
/// - A file `versions.txt` skips (`skip: file.xml`, `SkippedFiles`) is never used.
///
/// Rules, in order:
/// 1. The store at the destination: nothing to do.
/// 2. One mapping file (or the passes of one step) from the store's version to the
///    destination (and no stage in between): one heavyweight step.
/// 3. The destination before the store's version: error 134530, nothing is migrated backwards.
///    A destination other than the current version whose place the order cannot tell is an
///    error asking for the order (it may lie behind the store).
/// 4. Otherwise a walk from the store's version: at version C, stop first at the next stage's
///    `from` (a stage is always exactly one step, by its mapping file or by inference). Else,
///    of the mapping files starting at C and ending at or before that limit, take the one
///    reaching furthest (a heavyweight step): with files A → B, B → C and A → C, a store at A
///    goes A → C, one at B goes B → C. `versions.txt` can skip the direct file. Else migrate lightweight to the nearest version
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
/// With a total order, a mapping file that goes backwards is never used. Every file a plan
/// does not use is listed with why: backwards, the same hashes on both sides, an alternative,
/// another model's, skipped, or off the path ("the path from A to D does not pass B", "the path
/// goes from A to C with A-to-C.xml").
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
    /// Files `versions.txt` says never to use (`skip:` lines): listed as not used, never a step.
    public let skippedMappingFiles: [UpgradeMappingFile]

    public init(
        versions: UpgradeVersions, mappingFiles: [UpgradeMappingFile],
        unreadableMappingFiles: [UnreadableMappingFile] = [], skippedMappingFiles: [UpgradeMappingFile] = [],
        order: VersionOrder = .automatic, stages: [UpgradeStage] = []
    ) {
        self.versions = versions
        self.mappingFiles = mappingFiles
        self.unreadableMappingFiles = unreadableMappingFiles
        self.skippedMappingFiles = skippedMappingFiles
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
            for group in run.usable {
                for file in group.passes where !used.contains(file) {
                    unused.append(
                        UnusedMappingFile(
                            file: file, from: run.name(group.from), to: run.name(group.to),
                            reason: Self.offPath(group, steps: steps, run: run)))
                }
            }
        }
        return UpgradePlan(
            storeVersion: source, destination: destination, destinationName: destinationName, steps: steps,
            order: order, orderSource: order.source(for: versions), unusedMappingFiles: unused)
    }

    /// Why a file that no step uses is not on the path: the path does not pass its version, or
    /// goes on from there another way (from a version, the file reaching furthest).
    private static func offPath(_ file: MatchedMappingFile, steps: [UpgradeStep], run: PlanRun) -> String {
        if run.relation.position(file.from, run.source) == .before {
            return "it starts at \(run.name(file.from)), before the store's version \(run.name(run.source))"
        }
        if [.same, .after].contains(run.relation.position(file.from, run.destination)) {
            return "it starts at \(run.name(file.from)), where the upgrade to \(run.destinationName) ends or beyond"
        }
        let from = run.versions.schemas[file.from]
        guard let step = steps.first(where: { $0.from == from }) else {
            return steps.contains(where: { $0.to == from }) && file.from != run.destination
                ? "the path ends at \(run.name(file.from))"
                : "the path from \(run.name(run.source)) to \(run.destinationName) does not pass \(run.name(file.from))"
        }
        let how =
            step.mappingFiles.first.map { "with \($0.name)" }
            ?? (step.kind == .lightweight ? "lightweight" : "")
        return "the path goes from \(run.name(file.from)) to \(step.to.name) \(how)"
            + (step.mappingFiles.isEmpty ? "" : " (from a version, the mapping file that reaches furthest)")
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
