// `molt`, with the policies and value transformers in Policies/ compiled in. An app builds its
// own the same way, with its own policies (see Examples/LibraryApp).
import MoltCommandLine
import MoltPolicies

MoltCommandLine.main(policies: CompiledPolicies.registrations, transformers: CompiledPolicies.transformers)
