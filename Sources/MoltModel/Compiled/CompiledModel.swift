internal import MoltCore

/// A model read from Core Data's compiled form (a keyed archive of `NSManagedObjectModel`, as
/// a store's `Z_MODELCACHE` or a `.mom` file holds it), with what the archive held that Molt
/// does not keep.
///
/// ```swift
/// let compiled = try CompiledModelDecoder().decode(archiveData, location: SourceLocation(file: "Model.mom"))
/// print(try compiled.model.entityVersionHashes().mapValues(\.hexString))
/// compiled.notes.forEach { print("note: \($0)") }
/// ```
public struct CompiledModel: Sendable {
    /// The model: entities and properties sorted by name (an archive keeps no file order).
    public let model: ObjectModel
    /// Things the archive holds that the model does not keep, one sentence each: validation
    /// predicates, fetch request templates, default values or derivation expressions of a kind
    /// Molt does not read. None of them takes part in version hashes: anything that does and
    /// is not understood is an error instead.
    public let notes: [String]

    public init(model: ObjectModel, notes: [String]) {
        self.model = model
        self.notes = notes
    }
}
