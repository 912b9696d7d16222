import MoltCore

extension ObjectStore {
    /// Checks every object against the model's rules, as Core Data's save does, and throws the
    /// error it gives: a required value missing (1570), a number, date or string outside its
    /// attribute's bounds (1610 and the like), a relationship with too few or too many
    /// objects, two objects sharing the values of a uniqueness constraint (133021), or 1560
    /// for several problems, the first ones listed in the error's details.
    ///
    /// ``write(_:)`` checks each value's type and keeps both sides of every relationship, but
    /// does not run these rules, which concern the objects as a whole (a later write may add
    /// the missing value): call this after writing what should be a valid store. A migration
    /// runs the same checks in its validate pass.
    ///
    /// Only the rules the model declares are checked, each with one query, so a model with few
    /// rules is checked without loading its objects.
    public func validate() throws {
        var validation = StoreValidation(store: self, batchSize: 500)
        try validation.checkObjects(checkCancelled: {}, progress: { _, _ in })
        if let error = validation.error(
            recovery: "Correct or remove the objects named, then validate again.", objects: "the store's objects")
        {
            throw error.located(SourceLocation(file: store.url.path))
        }
    }
}
