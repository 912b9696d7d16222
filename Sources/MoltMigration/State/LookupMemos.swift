/// Answers the run's state looks up often and keeps while they hold (``PassState/memos``):
/// each is only ever a shortcut to what the models say.
final class LookupMemos {
    /// The entity whose numbers ``PassState/key(_:in:)`` looked up last, for the source store
    /// (0) and the destination store (1).
    var entityNumbers: [(entity: String, number: Int, root: Int)?] = [nil, nil]
    /// The stored attribute names of the source entity ``PassState/sourceValue(of:on:)`` was
    /// asked last.
    var sourceAttributeNames: (entity: String, names: Set<String>)?
    /// ``PassState/destinationKinds(of:)``'s answers.
    var destinationKinds: [String: Set<String>] = [:]
}
