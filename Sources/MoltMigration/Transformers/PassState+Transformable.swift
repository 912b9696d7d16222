internal import MoltCore

extension PassState {
    /// The work of the manager's `setTransformable` (its documentation is there).
    func setTransformable(_ key: String, of object: DestinationObject, to value: TransformableValue?) throws {
        let attribute = try TransformableAttribute(key, entity: object.entity, in: destination, side: "destination")
        let stored = try attribute.encode(value, of: object.id)
        try setAttributes([key: stored], of: object)
    }

    /// The work of the manager's `transformable` (its documentation is there).
    func transformable(_ key: String, of object: DestinationObject) throws -> TransformableValue? {
        let attribute = try TransformableAttribute(key, entity: object.entity, in: destination, side: "destination")
        guard let stored = try destination.object(object.id) else {
            throw MoltError(
                .migration, "the destination object \(object.id) does not exist", entity: object.entity, property: key)
        }
        return try attribute.decode(stored.attributes[key], of: object.id)
    }
}
