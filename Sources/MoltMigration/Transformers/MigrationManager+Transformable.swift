public import MoltCore

extension MigrationManager {
    /// Sets a Transformable attribute of a destination object: `value` is turned into bytes
    /// by the transformer the DESTINATION model names for the attribute (the built-in
    /// keyed-archive transformer for `NSSecureUnarchiveFromData` or none) and stored; nil
    /// stores NULL.
    ///
    /// Throws a ``/MoltCore/MoltError`` naming the object, entity and attribute when the attribute is
    /// not a stored Transformable one, when its transformer is not compiled in, or when the
    /// transformer cannot store the value.
    ///
    /// ```swift
    /// let tags = try source.transformable("tags")?.stringArray ?? []
    /// try manager.setTransformable("tags", of: note, to: TransformableValue(strings: tags.map { $0.lowercased() }))
    /// ```
    public func setTransformable(_ key: String, of object: DestinationObject, to value: TransformableValue?) throws {
        let attribute = try TransformableAttribute(key, entity: object.entity, in: destination, side: "destination")
        let stored = try attribute.encode(value, of: object.id)
        try setAttributes([key: stored], of: object)
    }

    /// The value of a Transformable attribute of a destination object, as this migration has
    /// written it so far, read with the transformer the DESTINATION model names; nil when it
    /// is NULL.
    ///
    /// ```swift
    /// var tags = try manager.transformable("tags", of: note)?.stringArray ?? []
    /// tags.append("migrated")
    /// try manager.setTransformable("tags", of: note, to: TransformableValue(strings: tags))
    /// ```
    public func transformable(_ key: String, of object: DestinationObject) throws -> TransformableValue? {
        let attribute = try TransformableAttribute(key, entity: object.entity, in: destination, side: "destination")
        guard let stored = try destination.object(object.id) else {
            throw MoltError(
                .migration, "the destination object \(object.id) does not exist", entity: object.entity, property: key)
        }
        return try attribute.decode(stored.attributes[key], of: object.id)
    }
}
