// The app's own `molt`: every command of Molt's, with the app's policies compiled in.
import LibraryPolicies
import MoltCommandLine

MoltCommandLine.main(policies: CompiledPolicies.registrations, transformers: CompiledPolicies.transformers)
