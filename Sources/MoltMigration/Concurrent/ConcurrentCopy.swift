internal import Foundation
internal import MoltCore
internal import MoltMapping
internal import MoltStore

/// The copy of one entity mapping on worker threads (``CopyConcurrency`` said it may): workers
/// read the source objects and run `createDestinationInstances`, recording what it makes
/// (``CopyRecording``); this thread, which alone writes the new store (and runs batches as the
/// workers do while the next one is not ready), does each object's writes in the source order
/// (``PassState/replay(_:of:mapping:)``) and runs in order, itself, the hooks that needed to
/// (``InOrderRequired``). Transactions, progress and cancellation are
/// counted per object, as on one thread, so the store, the report and what a crash or a
/// cancellation leaves are the same.
struct ConcurrentCopy {
    let state: PassState
    /// The writing thread's manager, for hooks run in order.
    let manager: MigrationManager
    let policy: EntityMigrationPolicy
    let mapping: EntityMapping
    /// The source entity, and the mapping's filter.
    let entity: String
    let filter: MappingExpression?
    /// Worker threads.
    let jobs: Int

    /// Runs the mapping's objects; `objectDone` is called after each one's writes.
    func run(_ objectDone: () throws -> Void) throws {
        let lock = NSLock()
        let reading = SharedSourceReading(state: state, lock: lock)
        let plans = insertPlans()
        let defaultRow = self.defaultRow()
        let objects = try FilteredObjects(
            store: state.source, entity: entity, filter: filter, variables: state.variables(),
            includingSubentities: false, now: state.startDate, resolver: state.resolver, readingToMany: false)
        let policy = policy
        let mapping = mapping
        // Objects made by default need no policy call, manager or recording on the workers.
        let byDefault =
            !PolicyRegistry.hooks(of: type(of: policy)).contains(.createDestinationInstances) ? defaultRow : nil
        // Otherwise one manager per worker (and one for this thread, which runs batches too
        // while it would wait: ``CopyWorkers``), whose state records the object its hook runs for.
        let managers = (0..<(byDefault == nil ? jobs + 1 : 0)).map { _ in
            let worker = WorkerState(
                pass: state, reading: reading, recording: CopyRecording(sequence: 0, plans: plans, defaultRow: nil))
            return (worker, MigrationManager(state: worker), CopyRecording.ColumnsMemo())
        }
        nonisolated(unsafe) let shared = (objects, managers)
        let cancellation = state.cancellation
        let workers = CopyWorkers(
            workers: jobs, window: 2 * jobs + 1, sourceLock: lock, isCancelled: { cancellation.error },
            read: { try shared.0.nextBatch() },
            process: { index, stored, sequence in
                if let byDefault {
                    let source = SourceObject(stored: stored, complete: false, reader: reading)
                    do {
                        let (entity, row) = try byDefault(source)
                        return .defaultRow(entity: entity, row: row)
                    } catch {
                        return .inOrder("\(error)")
                    }
                }
                let (worker, manager, columns) = shared.1[index]
                let recording = CopyRecording(
                    sequence: sequence, plans: plans, defaultRow: defaultRow, columns: columns)
                worker.recording = recording
                let source = SourceObject(stored: stored, complete: false, reader: reading)
                do {
                    try policy.createDestinationInstances(forSource: source, in: mapping, manager: manager)
                } catch {
                    if let call = recording.needsOrder ?? (error as? InOrderRequired)?.call { return .inOrder(call) }
                    return .failed(recording, error)
                }
                if let call = recording.needsOrder ?? (recording.deferredError as? InOrderRequired)?.call {
                    return .inOrder(call)
                }
                if let kept = recording.deferredError { return .failed(recording, kept) }
                return .recorded(recording)
            })
        workers.start()
        defer { workers.stop() }
        let deletedBefore = state.deletedSourceCount
        while let batch = try workers.next() {
            for (stored, outcome) in zip(batch.objects, batch.outcomes) {
                try state.checkCancelled()
                try write(stored, outcome, lock: lock)
                guard state.deletedSourceCount == deletedBefore else {
                    throw MoltError(
                        .entityMigrationPolicy,
                        "the policy of \(mapping.name) deleted source objects in createDestinationInstances, which runs on several threads",
                        entity: mapping.name,
                        recovery:
                            "A policy that deletes source objects must make its instances in order: remove its createsInstancesConcurrently, or run with one job."
                    )
                }
                try objectDone()
            }
            workers.giveBack(batch)
        }
    }

    /// One object's writes, in order: those its worker recorded, or its hook run here.
    private func write(_ stored: StoredObject, _ outcome: CopyWorkers.Outcome, lock: NSLock) throws {
        let source = SourceObject(stored: stored, complete: false, reader: state)
        try state.copying.visiting(source) { try write(source, stored, outcome, lock: lock) }
    }

    private func write(
        _ source: SourceObject, _ stored: StoredObject, _ outcome: CopyWorkers.Outcome, lock: NSLock
    ) throws {
        try PolicyCall.run(mapping, "createDestinationInstances", object: source.id, state: state) {
            switch outcome {
            case .defaultRow(let entity, let row):
                try state.insertDefault(entity, row: row, of: source, mapping: mapping)
            case .recorded(let recording):
                try state.replay(recording, of: source, mapping: mapping)
            case .failed(let recording, let error):
                try state.replay(recording, of: source, mapping: mapping)
                throw error
            case .inOrder(let call):
                state.logger.trace(
                    "copy: in order", metadata: ["molt.mapping": "\(mapping.name)", "molt.call": "\(call)"])
                // The source connection and the resolver are the workers' too meanwhile.
                try lock.withLock {
                    let outer = state.resolver.visitingSource
                    defer { state.resolver.visitingSource = outer }
                    state.resolver.visitingSource = stored
                    try policy.createDestinationInstances(forSource: source, in: mapping, manager: manager)
                }
            }
        }
    }

    /// The insert plan of every entity a hook may make, made here (the writer is this
    /// thread's): workers convert values with them.
    private func insertPlans() -> [String: InsertPlan] {
        var plans: [String: InsertPlan] = [:]
        // An entity without a plan is made in order (which reports what is wrong with it).
        for entity in state.destination.layout.entities where !entity.isAbstract {
            plans[entity.name] = try? state.writer.insertPlan(for: entity.name)
        }
        return plans
    }

    /// The mapping's default row of a source object, when a worker can make it.
    private func defaultRow() -> (
        @Sendable (SourceObject) throws -> (entity: String, row: [AttributeValue?])
    )? {
        let compiled = state.compiledMapping(mapping)
        guard let entity = mapping.destinationEntityName, CopyConcurrency.readsOnlyItsSource(compiled) else {
            return nil
        }
        // Worked out here, once: workers only read it. When it fails, every object's hook
        // runs in order, where the failure is reported as on one thread.
        guard let columns = try? state.destinationColumns(compiled, entity: entity) else { return nil }
        let mapping = mapping
        nonisolated(unsafe) let compiledMapping = compiled
        return { source in
            let row = try PassState.defaultRow(
                of: source, compiled: compiledMapping, columns: columns, mapping: mapping
            ) { _, _, _ in
                throw InOrderRequired(call: "an expression's value")
            }
            return (entity, row)
        }
    }
}
