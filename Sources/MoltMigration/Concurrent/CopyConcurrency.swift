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
    /// is nil) uses beside the writing thread: one fewer than the jobs, since the writing thread
    /// runs objects too whenever the next batch is not ready (``CopyWorkers``), so `jobs`
    /// threads share the work and no core is shared by two of them. With a policy's own
    /// `createDestinationInstances`, most of an object's work, the writing thread had waited a
    /// quarter of the copy for its workers; objects made by default cost a worker less than
    /// they cost the writing thread, which then seldom helps. The store is the same either way.
    static func workers(jobs: Int) -> Int { max(1, jobs - 1) }

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
