public import MoltStore

/// Code of the app's own that runs around one step of an upgrade: before the store leaves
/// version `from` (`willMigrate`), and once it is at version `to` (`didMigrate`).
///
/// The pair is a stage boundary: the upgrade plan has a step exactly from `from` to `to` (a
/// mapping file between them, or inference), never one that jumps over either version, and
/// planning fails with an error saying why when it cannot. A stage whose versions are not
/// between the store's version and the destination does not run.
///
/// Each handler runs in one transaction on the store, opened read-write and bound to that
/// version's model, together with the upgrade's record that the handler completed (a key in the
/// store's metadata, ``StoreUpgrade/progressKey``): its changes and that record are saved
/// together or not at all. So after a crash, a new run never runs a handler whose completion
/// was saved, and re-runs one that was interrupted. Handlers must therefore be restartable:
/// write through ``Context/writer`` (or SQL on ``Context/store``'s connection), and keep
/// effects outside the store (files, network) safe to repeat.
///
/// ```swift
/// let stage = UpgradeStage(
///     from: "Model 2", to: "Model 3",
///     willMigrate: { context in
///         for note in try context.store.objects(of: "Note").all() where note.attributes["body"] == nil {
///             try context.writer.update(note.id, attributes: ["body": .string("")])
///         }
///     },
///     didMigrate: { context in
///         try context.writer.insert("Setting", attributes: ["key": .string("migratedAt")])
///     })
/// ```
public struct UpgradeStage: Sendable {
    /// Which of a stage's two handlers.
    public enum Phase: String, Sendable, Hashable, CaseIterable {
        case willMigrate, didMigrate
    }

    /// What a handler works with.
    public struct Context {
        /// The store, read-write, bound to the version it is at (`from` for `willMigrate`, `to`
        /// for `didMigrate`). Reads see the handler's own writes.
        public let store: ObjectStore
        /// The writer of the handler's transaction. Do not call `store.write` (the transaction
        /// is already open).
        public let writer: ObjectWriter
        /// The stage.
        public let stage: UpgradeStage
        /// The handler running.
        public let phase: Phase
    }

    public typealias Handler = @Sendable (Context) throws -> Void

    /// The version the store is at before the step (a version name).
    public let from: String
    /// The version the step goes to.
    public let to: String
    public let willMigrate: Handler?
    public let didMigrate: Handler?

    public init(from: String, to: String, willMigrate: Handler? = nil, didMigrate: Handler? = nil) {
        self.from = from
        self.to = to
        self.willMigrate = willMigrate
        self.didMigrate = didMigrate
    }

    /// "V2 → V3".
    public var name: String { "\(from) → \(to)" }

    /// The handler for `phase`.
    public func handler(_ phase: Phase) -> Handler? {
        phase == .willMigrate ? willMigrate : didMigrate
    }

    /// The handlers this stage has, in the order they run.
    public var phases: [Phase] {
        Phase.allCases.filter { handler($0) != nil }
    }
}
