internal import MoltCore
internal import MoltMapping
internal import MoltModel

/// The steps a plan is made of: heavyweight from a mapping file, lightweight where inference
/// does it, and the steps the app's stages name.
extension PlanRun {
    func heavyweight(_ file: MatchedMappingFile, stage: UpgradeStage?) -> UpgradeStep {
        let from = versions.schemas[file.from]
        let to = versions.schemas[file.to]
        return UpgradeStep(
            from: from, to: to, kind: .heavyweight, mappingFiles: file.passes,
            sourceModel: from.model(preferring: file.file.mapping.sourceModelName),
            destinationModel: file.to == destination
                ? to.model(preferring: destinationName) : to.model(preferring: file.file.mapping.destinationModelName),
            stage: stage)
    }

    func model(_ schema: Int) -> ObjectModel {
        versions.schemas[schema].model(preferring: schema == destination ? destinationName : nil)
    }

    mutating func inference(_ from: Int, _ to: Int) -> InferenceResult {
        let pair = Pair(from: from, to: to)
        if let known = inferences[pair] { return known }
        let result = MappingInference.infer(from: model(from), to: model(to))
        inferences[pair] = result
        return result
    }

    mutating func lightweight(
        _ from: Int, _ to: Int, mapping: MappingModel, stage: UpgradeStage?
    )
        -> UpgradeStep
    {
        UpgradeStep(
            from: versions.schemas[from], to: versions.schemas[to], kind: .lightweight, inferred: mapping,
            sourceModel: model(from), destinationModel: model(to), stage: stage)
    }

    /// A stage's step: its mapping file, or inference; never split.
    mutating func stageStep(_ stage: (stage: UpgradeStage, from: Int, to: Int)) throws -> UpgradeStep {
        let files = usable.filter { $0.from == stage.from && $0.to == stage.to }
        if files.count > 1 {
            throw UpgradeErrors.ambiguous(files.map(\.file), from: name(stage.from), to: name(stage.to))
        }
        if let file = files.first { return heavyweight(file, stage: stage.stage) }
        switch inference(stage.from, stage.to) {
        case .inferred(let mapping):
            return lightweight(stage.from, stage.to, mapping: mapping, stage: stage.stage)
        case .impossible(let reasons):
            throw UpgradeErrors.missingMapping(
                from: name(stage.from), to: name(stage.to), reasons: reasons, stage: stage.stage)
        }
    }

    /// Lightweight from `from` to `to`: one step if it infers, else (with a total order) the
    /// fewest inferable steps through the versions between, each reaching as far as inference
    /// allows.
    mutating func lightweightSteps(from: Int, to: Int) throws -> [UpgradeStep] {
        if case .inferred(let mapping) = inference(from, to) {
            return [lightweight(from, to, mapping: mapping, stage: nil)]
        }
        let chain = [from] + relation.between(from, to) + [to]
        var steps: [UpgradeStep] = []
        var index = 0
        while index < chain.count - 1 {
            var reached: (index: Int, mapping: MappingModel)?
            for candidate in stride(from: chain.count - 1, to: index, by: -1) {
                if case .inferred(let mapping) = inference(chain[index], chain[candidate]) {
                    reached = (candidate, mapping)
                    break
                }
            }
            guard let reached else {
                throw UpgradeErrors.missingMapping(
                    from: name(chain[index]), to: name(chain[index + 1]),
                    reasons: inference(chain[index], chain[index + 1]).reasons, stage: nil)
            }
            steps.append(lightweight(chain[index], chain[reached.index], mapping: reached.mapping, stage: nil))
            index = reached.index
        }
        return steps
    }
}
