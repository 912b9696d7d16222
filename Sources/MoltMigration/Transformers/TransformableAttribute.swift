internal import Foundation
internal import MoltCore
internal import MoltMapping
internal import MoltModel
internal import MoltStore

/// A Transformable attribute of an entity in one of a migration's stores, with the
/// transformer its model names: what ``SourceObject/transformable(_:)`` and the manager's
/// `setTransformable`/`transformable` use to read and write such values.
struct TransformableAttribute {
    let attribute: Attribute
    let entity: String
    /// "source" or "destination", for messages.
    let side: String

    /// The stored Transformable attribute `key` of `entity` in `store`, or an error saying why
    /// it is not one.
    init(_ key: String, entity: String, in store: ObjectStore, side: String) throws {
        try self.init(key, entity: entity, in: store.layout, side: side)
    }

    /// The stored Transformable attribute `key` of `entity` in a store of `layout`, or an
    /// error saying why it is not one.
    init(_ key: String, entity: String, in storeLayout: StoreLayout, side: String) throws {
        let layout = try storeLayout.requireEntity(entity)
        guard let column = layout.attribute(named: key) else {
            throw MoltError(
                .migration, "the \(side) entity has no stored attribute \"\(key)\"", entity: entity, property: key)
        }
        guard column.attribute.type == .transformable else {
            throw MoltError(
                .migration,
                "the attribute is \(column.attribute.type.rawValue), not Transformable: transformable values are only for Transformable attributes",
                entity: entity, property: key,
                recovery: "Read it with value(_:) or text(_:), and set it with setAttributes(_:of:).")
        }
        self.attribute = column.attribute
        self.entity = entity
        self.side = side
    }

    /// The value `stored` stands for, read with the attribute's transformer; nil for NULL.
    func decode(_ stored: AttributeValue?, of object: ObjectID) throws -> TransformableValue? {
        guard let stored else { return nil }
        guard case .data(let bytes) = stored else {
            throw context(
                MoltError(.coderReadCorrupt, "the stored value is \(stored), not the bytes of a transformable value"),
                object: object)
        }
        let transformer = try ValueTransformerRegistry.transformer(for: attribute, entity: entity)
        do {
            return try transformer.reverseTransformedValue(bytes)
        } catch let error as MoltError {
            throw context(error, object: object)
        } catch {
            throw context(
                MoltError(
                    .coderReadCorrupt,
                    "the value transformer \(type(of: transformer).transformerName) could not read the stored value: \(error)",
                    underlying: DescribedError(error)), object: object)
        }
    }

    /// What to store for `value` (nil: NULL), made with the attribute's transformer.
    func encode(_ value: TransformableValue?, of object: ObjectID) throws -> ExpressionValue {
        guard let value else { return .null }
        let transformer = try ValueTransformerRegistry.transformer(for: attribute, entity: entity)
        do {
            return .data(try transformer.transformedValue(value))
        } catch let error as MoltError {
            throw context(error, object: object)
        } catch {
            throw context(
                MoltError(
                    .coderInvalidValue,
                    "the value transformer \(type(of: transformer).transformerName) could not store the \(value.className): \(error)",
                    underlying: DescribedError(error)), object: object)
        }
    }

    /// `error` naming the object, the entity and the attribute.
    func context(_ error: MoltError, object: ObjectID) -> MoltError {
        var located = error
        located.message = "\(side) object \(object): \(error.message)"
        located.entity = entity
        located.property = attribute.name
        return located
    }
}
