internal import MoltMapping

/// Whether an entity mapping's copy runs its source objects through copy workers
/// (``ConcurrentCopy``) or in order on one thread, and why: decided before any object is read,
/// from the mapping, the hooks its policy overrides and the options.
enum CopyConcurrency {
    /// Nil when the mapping's objects may be made on `jobs` worker threads, else why they are
    /// made in order.
    static func inOrderReason(
        _ mapping: EntityMapping, policy: EntityMigrationPolicy.Type, compiled: @autoclosure () -> CompiledMapping,
        jobs: Int
    ) -> String? {
        guard jobs > 1 else { return "one thread (jobs 1)" }
        guard mapping.kind.readsSource, mapping.sourceEntityName != nil else { return "it reads no source object" }
        if PolicyRegistry.hooks(of: policy).contains(.createDestinationInstances) {
            guard policy.createsInstancesConcurrently else {
                return
                    "its policy's createDestinationInstances runs in order (it does not say createsInstancesConcurrently)"
            }
            return nil
        }
        guard readsOnlyItsSource(compiled()) else {
            return "a value is an expression, evaluated in order"
        }
        return nil
    }

    /// The worker threads a mapping copied on workers (``inOrderReason(_:policy:compiled:jobs:)``
    /// is nil) uses beside the writing thread. A policy's own `createDestinationInstances` is
    /// most of an object's work: one worker per job. An object made by default costs a worker
    /// less than it costs the writing thread (reading and converting the row against inserting
    /// and associating it), which every object waits for: one worker fewer, so that the
    /// writing thread keeps a core of its own (at 110k objects on two cores, the copy pass in
    /// 0.34 s instead of 0.37 s, medians of five). The store is the same either way.
    static func workers(policy: EntityMigrationPolicy.Type, jobs: Int) -> Int {
        PolicyRegistry.hooks(of: policy).contains(.createDestinationInstances) ? jobs : max(1, jobs - 1)
    }

    /// Whether every attribute value of the mapping is the source object's own attribute, the
    /// model's default or none: the default object is then made from the source row alone.
    static func readsOnlyItsSource(_ compiled: CompiledMapping) -> Bool {
        compiled.attributes.indices.allSatisfy { index in
            if compiled.sourceAttributes[index] != nil { return true }
            if case .expression = compiled.attributes[index].value { return false }
            return true
        }
    }
}
