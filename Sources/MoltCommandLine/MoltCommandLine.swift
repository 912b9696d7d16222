internal import Foundation
public import Molt
internal import MoltCore

/// The whole `molt` command line as a library, so that an app's package builds its own `molt`
/// with its own entity-migration policies and value transformers compiled in:
///
/// ```swift
/// // Sources/app-molt/main.swift, in a target that depends on MoltCommandLine and on the
/// // target holding the app's policies (built with the PolicyListPlugin).
/// import MoltCommandLine
/// import AppPolicies
///
/// MoltCommandLine.main(policies: CompiledPolicies.registrations, transformers: CompiledPolicies.transformers)
/// ```
///
/// Every subcommand of `molt` is there (`migrate`, `upgrade`, `verify`, …); a mapping file
/// names a policy by its type name, as with Molt's own `molt`.
public enum MoltCommandLine {
    /// Registers `policies` (each with the hooks its code overrides, as the PolicyList plugin
    /// lists them) and `transformers`, runs the command line `arguments` (by default the
    /// process's), and exits with the command's exit code.
    public static func main(
        policies: [PolicyRegistration], transformers: [any AttributeValueTransformer.Type] = [],
        arguments: [String]? = nil
    ) -> Never {
        FaultPoint.armFromEnvironment()
        PolicyRegistry.register(policies)
        ValueTransformerRegistry.register(transformers)
        let given = arguments ?? Array(CommandLine.arguments.dropFirst())
        do {
            var command = try MoltCommand.parseAsRoot(given)
            try command.run()
        } catch {
            // A usage error under --json is JSON too (the other errors are, by each command).
            if given.contains("--json"), MoltCommand.exitCode(for: error).rawValue == ExitCodes.usage {
                try? Output.json(ErrorJSON(usage: MoltCommand.message(for: error)))
            }
            MoltCommand.exit(withError: error)
        }
        exit(0)
    }

    /// Registers `policies`, each taken to override every hook (``PolicyRegistry/register(_:)-5t18m``),
    /// then runs as ``main(policies:transformers:arguments:)``.
    public static func main(
        policies: [EntityMigrationPolicy.Type], transformers: [any AttributeValueTransformer.Type] = [],
        arguments: [String]? = nil
    ) -> Never {
        main(
            policies: policies.map { PolicyRegistration($0, overriding: .all) }, transformers: transformers,
            arguments: arguments)
    }
}
