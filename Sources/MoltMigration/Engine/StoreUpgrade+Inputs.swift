public import Foundation

extension StoreUpgrade {
    /// An upgrade with what ``UpgradeInputs`` read.
    public convenience init(
        store: URL, inputs: UpgradeInputs, to destination: String? = nil, stages: [UpgradeStage] = [],
        options: MigrationOptions = MigrationOptions(), context: RunContext = RunContext()
    ) {
        self.init(
            store: store, versions: inputs.versions, mappingFiles: inputs.mappingFiles,
            unreadableMappingFiles: inputs.unreadableMappingFiles, skippedMappingFiles: inputs.skippedMappingFiles,
            order: inputs.order, to: destination, stages: stages, options: options, context: context)
    }
}
