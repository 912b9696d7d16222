internal import MoltCore
internal import MoltMapping
internal import MoltStore

/// Runs a policy hook, turning what it throws into Core Data's policy error (134170) naming
/// the mapping, the hook and the object.
enum PolicyCall {
    /// With `state`, what a non-throwing call kept (``PassState/takeDeferredError()``)
    /// is thrown once the hook returns, as if the hook had thrown it.
    static func run(
        _ mapping: EntityMapping, _ hook: String, object: ObjectID? = nil, state: PassState? = nil,
        _ body: () throws -> Void
    ) throws {
        do {
            _ = state?.takeDeferredError()
            try body()
            if let kept = state?.takeDeferredError() { throw kept }
        } catch let error as MoltError {
            throw error
        } catch {
            let subject = object.map { " on \($0)" } ?? ""
            throw MoltError(
                .entityMigrationPolicy,
                "the policy of \(mapping.name) failed in \(hook)\(subject): \(error)", entity: mapping.name,
                recovery:
                    "Fix the policy \(mapping.policyName ?? "") or the data it cannot handle; the store was not changed.",
                underlying: DescribedError(error))
        }
    }
}
