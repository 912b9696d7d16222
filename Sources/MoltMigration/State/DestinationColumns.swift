import MoltCore
import MoltMapping
import MoltModel
import MoltStore

/// Where an entity mapping's attribute values go in the rows of its destination entity, worked
/// out once per mapping, so making an object fills an array by column instead of dictionaries
/// by name.
struct DestinationColumns {
    /// The model's default of each column (the value of a column the mapping leaves alone).
    let defaults: [AttributeValue?]
    /// For each of the mapping's attributes, in its order: the column it fills.
    let column: [Int]
    /// For each of the mapping's attributes: the destination attribute.
    let attribute: [Attribute]
    /// For each of the mapping's attributes: whether its value is a source attribute of the
    /// same type, stored as it was read (converting would give the same value).
    let direct: [Bool]
    /// The mapping's attribute indexes in column order: values are converted in that order,
    /// so the first failure reported is the one the object-by-name path reports.
    let conversionOrder: [Int]

    /// Throws when an attribute of the mapping has no column in `layout`.
    init(
        _ compiled: CompiledMapping, layout: EntityLayout, defaults: [AttributeValue?], sourceModel: ObjectModel
    ) throws {
        var column: [Int] = []
        var attribute: [Attribute] = []
        var direct: [Bool] = []
        let sourceTypes = Dictionary(
            (compiled.resolved.sourceEntity.map { sourceModel.allAttributes(of: $0) } ?? []).map { ($0.name, $0.type) },
            uniquingKeysWith: { first, _ in first })
        let positions = Dictionary(
            layout.attributes.enumerated().map { ($1.attribute.name, $0) }, uniquingKeysWith: { first, _ in first })
        for (index, (name, _)) in compiled.attributes.enumerated() {
            guard let position = positions[name] else {
                throw MoltError(
                    .migration, "the destination entity has no stored attribute \"\(name)\"", entity: layout.name)
            }
            let destination = layout.attributes[position].attribute
            column.append(position)
            attribute.append(destination)
            let sourceType = compiled.sourceAttributes[index].flatMap { sourceTypes[$0] }
            direct.append(sourceType == destination.type && Self.storesAsRead(destination.type))
        }
        self.defaults = defaults
        self.column = column
        self.attribute = attribute
        self.direct = direct
        conversionOrder = column.indices.sorted { column[$0] < column[$1] }
    }

    /// Whether converting a value read from an attribute of `type` into an attribute of the
    /// same type gives it back unchanged (integers also need to be in range; see ``fits(_:_:)``).
    private static func storesAsRead(_ type: AttributeType) -> Bool {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .string, .boolean, .date, .binary, .uuid, .uri:
            return true
        case .decimal, .transformable, .undefined, .objectID, .composite:
            return false
        }
    }

    /// Whether `value`, read from a source attribute of the same type, goes in as it is: an
    /// integer only within its type's range (out of range, converting reports it).
    func fits(_ value: AttributeValue, _ index: Int) -> Bool {
        guard case .integer(let number) = value, let range = attribute[index].type.integerRange else { return true }
        return range.contains(number)
    }
}
