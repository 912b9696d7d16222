// Where each step of the walk may end, as the version order tells: the next limit (the
// destination or a stage), the mapping file that reaches furthest, the nearest version where a
// mapping file starts or ends; an error wherever the order cannot tell.
extension PlanRun {
    /// The destination, or the `from` of the next stage if one comes first.
    func nearestLimit(after current: Int, stages: [(stage: UpgradeStage, from: Int, to: Int)]) throws -> Int {
        var candidates = [destination]
        for stage in stages {
            switch relation.position(current, stage.from) {
            case .before: candidates.append(stage.from)
            case .same: candidates.append(stage.from)
            case .after:
                throw UpgradeErrors.stage(
                    stage.stage, "the path from \(name(source)) to \(destinationName) jumps over it",
                    recovery: "Stages must not overlap; each is one step of the upgrade.")
            case .unknown, .cyclic:
                throw UpgradeErrors.orderNeeded(
                    "\(UpgradeErrors.whereAt(name(current), store: name(source))); the order does not say whether the stage \(stage.stage.name) comes after it"
                )
            }
        }
        return try nearest(candidates) { "which of \($0) comes first" }
    }

    /// The mapping file starting at `current` that reaches furthest without passing `limit`.
    func furthestFile(from current: Int, limit: Int) throws -> MatchedMappingFile? {
        var candidates: [MatchedMappingFile] = []
        for file in usable where file.from == current {
            let forward = relation.position(current, file.to)
            let within = relation.position(file.to, limit)
            if forward == .cyclic || [.unknown, .cyclic].contains(within) {
                throw UpgradeErrors.orderNeeded(
                    "\(UpgradeErrors.whereAt(name(current), store: name(source))) and the upgrade goes to \(name(limit)); the mapping file \(file.file.name) goes from \(name(file.from)) to \(name(file.to)), and the mapping files do not say whether \(name(file.to)) comes "
                        + (forward == .cyclic
                            ? "after \(name(current)) (mapping files go there and back)" : "before \(name(limit))"))
            }
            if within == .same || within == .before { candidates.append(file) }
        }
        guard !candidates.isEmpty else { return nil }
        let furthest = try nearest(candidates.map(\.to), last: true) { "which of \($0) comes last" }
        let files = candidates.filter { $0.to == furthest }
        if files.count > 1 {
            throw UpgradeErrors.ambiguous(files.map(\.file), from: name(current), to: name(furthest))
        }
        return files[0]
    }

    /// The nearest version after `current` and before `limit` where a mapping file starts or
    /// ends, so that a lightweight step never jumps over one.
    func nearestBoundary(after current: Int, before limit: Int) throws -> Int? {
        var inside: [Int] = []
        for file in usable {
            for boundary in [file.from, file.to] where boundary != current && boundary != limit {
                let afterCurrent = relation.position(current, boundary)
                let beforeLimit = relation.position(boundary, limit)
                if afterCurrent == .before && beforeLimit == .before {
                    inside.append(boundary)
                } else if [.after, .same].contains(afterCurrent) || [.after, .same].contains(beforeLimit) {
                    continue
                } else {
                    throw UpgradeErrors.orderNeeded(
                        "\(UpgradeErrors.whereAt(name(current), store: name(source))) and the upgrade goes to \(name(limit)); the mapping file \(file.file.name) goes from \(name(file.from)) to \(name(file.to)), and the mapping files do not say whether it lies between"
                    )
                }
            }
        }
        guard !inside.isEmpty else { return nil }
        return try nearest(Array(Set(inside))) { "which of \($0) comes first" }
    }

    /// The first (or with `last`, the last) of `candidates` in the order; an error when the
    /// order cannot tell.
    func nearest(_ candidates: [Int], last: Bool = false, question: (String) -> String) throws -> Int {
        let unique = Array(Set(candidates)).sorted()
        for candidate in unique {
            let wins = unique.allSatisfy { other in
                [.same, last ? .after : .before].contains(relation.position(candidate, other))
            }
            if wins { return candidate }
        }
        throw UpgradeErrors.orderNeeded(
            "the mapping files do not say \(question(unique.map(name).joined(separator: ", ")))")
    }
}
