internal import MoltCore

/// Transformable values of destination objects, as the manager's `setTransformable` and
/// `transformable` give them: through the checkpoint's attribute operations, which show no
/// key written at insert (a Transformable value is an attribute, never a relationship).
extension DestinationCheckpoint {
    /// The work of the manager's `setTransformable` (its documentation is there).
    func setTransformable(_ key: String, of object: DestinationObject, to value: TransformableValue?) throws {
        let attribute = try TransformableAttribute(key, entity: object.entity, in: layout, side: "destination")
        let stored = try attribute.encode(value, of: object.id)
        try setAttributes([key: stored], of: object)
    }

    /// The work of the manager's `transformable` (its documentation is there).
    func transformable(_ key: String, of object: DestinationObject) throws -> TransformableValue? {
        let attribute = try TransformableAttribute(key, entity: object.entity, in: layout, side: "destination")
        return try attribute.decode(try storedAttribute(key, of: object), of: object.id)
    }
}
