internal import Foundation
internal import MoltCore
internal import MoltMapping
public import MoltModel
internal import MoltStore

/// Planning from a store's embedded model, for a store made with a model version the upgrade
/// was not given (``StoreUpgrade/allowsEmbeddedSourceModel``).
///
/// As Core Data does with its model cache, the store migrates in one lightweight step from its
/// own model straight to the destination: the embedded model is no version of the bundle, so
/// no mapping file can start there and no order places it among the versions. Every mapping
/// file is listed as not used. When the step cannot be inferred, the plan fails with 134140.
extension UpgradePlanner {
    /// The plan from `model` (a store's embedded model, whose hashes are the store's) to the
    /// version called `to` (by default the current version).
    public func plan(
        fromEmbedded model: ObjectModel, storePath: String? = nil, to: String? = nil
    ) throws
        -> UpgradePlan
    {
        guard let destinationName = to ?? versions.currentVersionName else {
            throw MoltError(
                .fileReadNoSuchFile, "the model has several versions and none is marked current",
                recovery: "Name the destination version (--to).")
        }
        let destination = try versions.requireSchema(named: destinationName, role: "the destination")
        let name = model.name ?? EmbeddedModel.versionName
        let source = SchemaVersion(names: [name], models: [model], hashes: try model.entityVersionHashes())
        let unused = mappingFiles.map {
            UnusedMappingFile(
                file: $0, from: $0.mapping.sourceModelName ?? "?", to: $0.mapping.destinationModelName ?? "?",
                reason: "the store is at its embedded model, where no mapping file starts")
        }
        var plan = UpgradePlan(
            storeVersion: source, destination: destination, destinationName: destinationName, steps: [], order: order,
            orderSource: "not needed: one inferred step from the store's embedded model", unusedMappingFiles: unused)
        plan.usesEmbeddedSourceModel = true
        guard source.hashes != destination.hashes else { return plan }
        let destinationModel = destination.model(preferring: destinationName)
        switch MappingInference.infer(from: model, to: destinationModel) {
        case .inferred(let mapping):
            var step = UpgradeStep(
                from: source, to: destination, kind: .lightweight, inferred: mapping, sourceModel: model,
                destinationModel: destinationModel, stage: nil)
            step.discards = DiscardSurvey(source: model, destination: destinationModel, mapping: mapping).items()
            plan.steps = [step]
            return plan
        case .impossible(let reasons):
            var error = UpgradeErrors.missingMapping(from: name, to: destinationName, reasons: reasons, stage: nil)
            error.message =
                "the store's embedded model cannot be migrated to \(destinationName) by inference\(reasons.first.map { ": \($0)" } ?? "")"
            error.recovery =
                "Give the model version the store was made with (then mapping files can be used), or write a mapping file from it and use `molt migrate --mapping`."
            if let storePath { error.location = SourceLocation(file: storePath) }
            throw error
        }
    }
}
