import PackagePlugin

/// Writes the lists of entity-migration policies and attribute value transformers defined in a
/// target's Swift files, so that a policy or transformer added to `Policies/` is found by `molt`
/// after a rebuild, with no list to edit.
@main
struct PolicyListPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let inputs = target.sourceFiles(withSuffix: "swift").map(\.url)
        let output = context.pluginWorkDirectoryURL.appending(path: "GeneratedPolicyList.swift")
        return [
            .buildCommand(
                displayName: "Listing the entity-migration policies and value transformers of \(target.name)",
                executable: try context.tool(named: "PolicyListGenerator").url,
                arguments: [output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
