public import MoltCore

extension SourceObject {
    /// The value of a Transformable attribute, read with the transformer the SOURCE model
    /// names for it (the built-in keyed-archive transformer for `NSSecureUnarchiveFromData`
    /// or none); nil when the attribute is NULL.
    ///
    /// Throws a ``/MoltCore/MoltError`` naming the object, entity and attribute when the attribute is
    /// not a stored Transformable one, when its transformer is not compiled in, or when the
    /// stored bytes cannot be read (an archive holding a class such as `UIColor`: Foundation's
    /// 4864).
    ///
    /// ```swift
    /// let tags = try source.transformable("tags")?.stringArray ?? []
    /// ```
    public func transformable(_ key: String) throws -> TransformableValue? {
        let attribute = try TransformableAttribute(key, entity: entity, in: reader.sourceStore, side: "source")
        return try attribute.decode(stored.attributes[key], of: id)
    }
}
