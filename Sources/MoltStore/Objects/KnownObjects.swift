/// Objects a caller vouches exist with the entities their IDs name (a migration's objects,
/// from its association table), so the writer need not look their rows up; the model's rules
/// are still checked for every object.
package struct KnownObjects {
    /// Every object the call names.
    package var all: Bool
    package var ids: Set<ObjectID>

    /// None known: every row is looked up.
    package static let none = KnownObjects(all: false, ids: [])
    /// Every object the call names.
    package static let every = KnownObjects(all: true, ids: [])

    package init(all: Bool = false, ids: Set<ObjectID> = []) {
        self.all = all
        self.ids = ids
    }

    package func contains(_ id: ObjectID) -> Bool { all || ids.contains(id) }
}
