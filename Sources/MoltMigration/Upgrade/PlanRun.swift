internal import MoltCore
internal import MoltMapping
internal import MoltModel

/// One planning: the rules of ``UpgradePlanner`` applied to a store's version and a destination.
/// Schemas are indices into `UpgradeVersions.schemas`.
struct PlanRun {
    let versions: UpgradeVersions
    let source: Int
    let destination: Int
    let destinationName: String
    let storePath: String?
    let relation: VersionRelation
    /// The files a plan may use.
    private(set) var usable: [MatchedMappingFile] = []
    /// The files it never uses: backwards in a total order, or between two versions with the
    /// same hashes.
    private(set) var unusable: [UnusedMappingFile] = []
    /// The stages, with their schemas.
    let stages: [(stage: UpgradeStage, from: Int, to: Int)]
    var inferences: [Pair: InferenceResult] = [:]

    struct Pair: Hashable {
        let from: Int
        let to: Int
    }

    init(
        planner: UpgradePlanner, source: SchemaVersion, destination: SchemaVersion, destinationName: String,
        storePath: String?
    ) throws {
        versions = planner.versions
        self.source = versions.schemas.firstIndex(of: source)!
        self.destination = versions.schemas.firstIndex(of: destination)!
        self.destinationName = destinationName
        self.storePath = storePath
        let matcher = MappingFileMatcher(versions: versions)
        var matched: [MatchedMappingFile] = []
        var elsewhere: [UnusedMappingFile] = []
        for file in planner.mappingFiles {
            switch try matcher.classify(file) {
            case .matched(let match): matched.append(match)
            case .elsewhere(let reason):
                elsewhere.append(
                    UnusedMappingFile(
                        file: file, from: file.mapping.sourceModelName ?? "?",
                        to: file.mapping.destinationModelName ?? "?", reason: reason))
            }
        }
        var stages: [(stage: UpgradeStage, from: Int, to: Int)] = []
        for stage in planner.stages {
            let from = versions.schemas.firstIndex(
                of: try versions.requireSchema(named: stage.from, role: "a stage's from"))!
            let to = versions.schemas.firstIndex(of: try versions.requireSchema(named: stage.to, role: "a stage's to"))!
            guard from != to else {
                throw UpgradeErrors.stage(
                    stage, "the two versions have the same entity hashes, so no migration runs between them")
            }
            if let other = stages.first(where: { $0.from == from && $0.to == to }) {
                throw UpgradeErrors.stage(
                    stage, "another stage (\(other.stage.name)) has the same two versions",
                    recovery: "Give one stage per pair of versions, with both handlers.")
            }
            stages.append((stage, from, to))
        }
        self.stages = stages
        if let ranks = try planner.order.ranks(of: versions) {
            relation = VersionRelation(ranks: ranks)
        } else {
            relation = VersionRelation(
                count: versions.schemas.count, edges: matched.map { ($0.from, $0.to) } + stages.map { ($0.from, $0.to) }
            )
        }
        for file in matched {
            if file.from == file.to {
                unusable.append(
                    UnusedMappingFile(
                        file: file.file, from: name(file.from), to: name(file.to),
                        reason: "both sides have the same entity hashes"))
            } else if relation.isTotal, relation.position(file.to, file.from) == .before {
                unusable.append(
                    UnusedMappingFile(
                        file: file.file, from: name(file.from), to: name(file.to),
                        reason: "goes from \(name(file.from)) back to \(name(file.to))"))
            } else if let index = usable.firstIndex(where: { $0.takes(file) }) {
                // Another file between the same two versions: a later pass of one step
                // (Core Data's multiple passes), in the order the files are given.
                usable[index].passes.append(file.file)
            } else {
                usable.append(file)
            }
        }
        chooseAmongAlternatives()
        unusable += elsewhere
        for file in planner.skippedMappingFiles {
            let match = try? matcher.match(file)
            unusable.append(
                UnusedMappingFile(
                    file: file, from: match.map { name($0.from) } ?? file.mapping.sourceModelName ?? "?",
                    to: match.map { name($0.to) } ?? file.mapping.destinationModelName ?? "?",
                    reason: "versions.txt skips it"))
        }
        for stage in stages where relation.position(stage.from, stage.to) == .after {
            throw UpgradeErrors.stage(
                stage.stage,
                "it goes backwards: \(name(stage.to)) comes before \(name(stage.from)) in the version order")
        }
    }

    /// Keeps one step's files among several between the same two schemas that are not passes of
    /// one step (they name different versions: two versions with the same hashes, or a file
    /// whose hashes say another version than it names), by one rule: files whose names agree
    /// with their hashes first, then the one from the version listed first among versions with
    /// the same hashes, then the first file. The others are listed as not used, saying why.
    private mutating func chooseAmongAlternatives() {
        var chosen: [MatchedMappingFile] = []
        for group in usable {
            guard let index = chosen.firstIndex(where: { $0.from == group.from && $0.to == group.to }) else {
                chosen.append(group)
                continue
            }
            let (kept, dropped) = rank(group) < rank(chosen[index]) ? (group, chosen[index]) : (chosen[index], group)
            chosen[index] = kept
            let reason =
                dropped.namesAgree
                ? "\(kept.file.name) connects the same versions and is used (of files between versions with the same entity hashes, the one from the version listed first)"
                : "its hashes say it goes from \(versions.schemas[dropped.from].description) to \(versions.schemas[dropped.to].description), not \(dropped.fromName ?? "?") to \(dropped.toName ?? "?") as it names; \(kept.file.name) connects those versions and is used"
            for file in dropped.passes {
                unusable.append(
                    UnusedMappingFile(file: file, from: name(dropped.from), to: name(dropped.to), reason: reason))
            }
        }
        usable = chosen
    }

    /// The order of preference of alternative files (lower first).
    private func rank(_ file: MatchedMappingFile) -> (Int, Int) {
        let names = versions.schemas[file.from].names
        return (file.namesAgree ? 0 : 1, file.fromName.flatMap { names.firstIndex(of: $0) } ?? names.count)
    }

    /// Whether a mapping from `from` to `to` lies outside this upgrade's range of versions, by
    /// the version order: it starts before the store's version, ends after the destination,
    /// or goes backwards. Unknown positions count as inside.
    func isOutsideRange(from: Int, to: Int) -> Bool {
        from == to || relation.position(from, source) == .before || relation.position(to, destination) == .after
            || relation.position(to, from) == .before
    }

    func name(_ schema: Int) -> String {
        schema == destination ? destinationName : versions.schemas[schema].name
    }

    // MARK: The plan

    mutating func steps() throws -> [UpgradeStep] {
        if source == destination { return [] }
        // A usable direct file means the destination is not before the store's version.
        switch relation.position(destination, source) {
        case .before:
            throw UpgradeErrors.newerThanDestination(
                store: name(source), destination: destinationName, path: storePath)
        case .unknown where destinationName != versions.currentVersionName:
            // The current version is the newest an app ships; any other destination may lie
            // behind the store, and migrating there would discard what later versions added.
            throw UpgradeErrors.orderNeeded(
                "the upgrade goes to \(destinationName), which is not the current version, and nothing says whether it comes after the store's version \(name(source)) (an upgrade never goes backwards)"
            )
        default:
            break
        }
        let direct = usable.filter { $0.from == source && $0.to == destination }
        if direct.count > 1 {
            throw UpgradeErrors.ambiguous(direct.map(\.file), from: name(source), to: name(destination))
        }
        let inside = try stagesOnPath()
        if let file = direct.first, inside.allSatisfy({ $0.from == source && $0.to == destination }) {
            return [heavyweight(file, stage: inside.first?.stage)]
        }
        let steps = try walk(stages: inside)
        for stage in inside where !steps.contains(where: { $0.stage?.name == stage.stage.name }) {
            throw UpgradeErrors.stage(
                stage.stage, "the path from \(name(source)) to \(destinationName) jumps over it",
                recovery: "Stages must not overlap; each is one step of the upgrade.")
        }
        return steps
    }

    /// The stages between the store's version and the destination. A stage partly outside, or
    /// whose place the order cannot tell, is an error.
    func stagesOnPath() throws -> [(stage: UpgradeStage, from: Int, to: Int)] {
        var inside: [(stage: UpgradeStage, from: Int, to: Int)] = []
        for entry in stages {
            let (from, to) = (entry.from, entry.to)
            func atOrBefore(_ a: Int, _ b: Int) -> Bool { [.same, .before].contains(relation.position(a, b)) }
            func strictly(_ a: Int, _ b: Int) -> Bool { relation.position(a, b) == .before }
            if atOrBefore(to, source) || atOrBefore(destination, from) { continue }
            if atOrBefore(source, from) && atOrBefore(to, destination) {
                inside.append(entry)
                continue
            }
            if strictly(from, source) && strictly(source, to) {
                throw UpgradeErrors.stage(
                    entry.stage, "the store is at \(name(source)), between the stage's two versions, so it cannot run",
                    recovery: "Remove the stage for this store, or restore the store to \(name(from)).")
            }
            if strictly(from, destination) && strictly(destination, to) {
                throw UpgradeErrors.stage(
                    entry.stage, "the destination \(destinationName) lies between the stage's two versions",
                    recovery: "Upgrade to \(name(to)) or to a version before \(name(from)).")
            }
            throw UpgradeErrors.orderNeeded(
                "the store is at \(name(source)) and the upgrade goes to \(destinationName); the order does not say whether the stage \(entry.stage.name) lies between them"
            )
        }
        return inside
    }

    mutating func walk(stages inside: [(stage: UpgradeStage, from: Int, to: Int)]) throws -> [UpgradeStep] {
        var steps: [UpgradeStep] = []
        var current = source
        while current != destination {
            guard steps.count <= versions.schemas.count else {
                throw MoltError(.migration, "internal error: the upgrade plan does not reach \(destinationName)")
            }
            if let stage = inside.first(where: { $0.from == current }) {
                steps.append(try stageStep(stage))
                current = stage.to
                continue
            }
            let limit = try nearestLimit(after: current, stages: inside.filter { !steps.contains(stage: $0.stage) })
            if let file = try furthestFile(from: current, limit: limit) {
                steps.append(heavyweight(file, stage: nil))
                current = file.to
                continue
            }
            let target = try nearestBoundary(after: current, before: limit) ?? limit
            steps += try lightweightSteps(from: current, to: target)
            current = target
        }
        return steps
    }

}

extension [UpgradeStep] {
    fileprivate func contains(stage: UpgradeStage) -> Bool {
        contains { $0.stage?.name == stage.name }
    }
}
