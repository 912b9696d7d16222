public import Foundation
public import MoltModel

/// Which property each bit of an update's mask of changed properties stands for
/// (`ACHANGE.ZCOLUMNS`, the source of `NSPersistentHistoryChange.updatedProperties`), for one
/// entity: decodes a mask into property names and encodes names into a mask.
///
/// Core Data (`_NSPersistentHistoryChange`, read in the decompiled iOS 18.2 and 26.1 builds)
/// gives one bit to each of the entity's SQL columns and relationships, in six groups:
///
/// 1. to-one relationships (their key columns, `Z` + NAME);
/// 2. to-ones whose destination has sub-entities (their entity columns, `Z<n>_NAME`);
/// 3. to-ones whose inverse is an ordered to-many (their order columns, `Z_FOK_NAME`);
/// 4. attributes (one bit per attribute column);
/// 5. to-many relationships whose inverse is a to-one, or that have no inverse;
/// 6. many-to-many relationships.
///
/// Bit `i` is bit `0x80 >> (i & 7)` of byte `i >> 3`, and a mask is `(n + 7) / 8` bytes for
/// `n` bits. A mask shorter than that names no property (Core Data reads it as none). A
/// property stands for every bit that is its own: a to-one may have three.
///
/// Order within a group. In Core Data, the first four groups are the entity's column lists:
/// a sub-entity's start with its parent's, then its own, each entity's properties taken by
/// name (``/MoltModel/NameOrder``). Molt orders them so, inherited first: for attributes this is checked
/// in the decompiled code of both builds; for the key, entity and order columns it is what the
/// code suggests (relationships processed by name), not checked against a real store. Core
/// Data's last two groups are read from a dictionary's values, whose order nothing defines;
/// Molt orders them by name, inherited ones among them. Not counted: the hidden key column
/// Core Data gives the destination of a to-many without an inverse (Molt keeps such links in
/// a join table), whose place is not established.
///
/// A property is matched by its full name: an attribute column of a composite attribute by
/// its dotted path (`home.city`). (Core Data matches such a leaf by its own name, `city`;
/// for models without composites the two are the same.)
///
/// ```swift
/// if let item = layout.historyColumnMask(of: "Item") {
///     let bytes = item.mask(for: ["name", "tags"])   // what Core Data writes for that update
///     item.properties(in: bytes)                     // ["name", "tags"]
/// }
/// ```
public struct HistoryColumnMask: Sendable, Hashable {
    /// The group a bit belongs to, in the order of the groups.
    public enum Group: Int, Sendable, Hashable, CaseIterable {
        case foreignKey, entityKey, orderKey, attribute, toMany, manyToMany
    }

    /// What one bit stands for.
    public struct Column: Sendable, Hashable, CustomStringConvertible {
        public let property: String
        public let group: Group

        public init(property: String, group: Group) {
            self.property = property
            self.group = group
        }

        public var description: String { "\(property) (\(group))" }
    }

    /// The entity's name.
    public let entity: String
    /// One per bit, in bit order.
    public let columns: [Column]

    public init(entity: String, columns: [Column]) {
        self.entity = entity
        self.columns = columns
    }

    /// The mask of `entity`, whose layout is `layout` in a store of `model`.
    public init(_ layout: EntityLayout, model: ObjectModel) {
        let lineage: [Entity] =
            model.entity(named: layout.name).map { model.ancestors(of: $0).reversed() + [$0] } ?? []
        // Each owner's own properties, by name, owners from the root down.
        var toOnes: [RelationshipLayout] = []
        var attributes: [AttributeColumn] = []
        var claimed = Set<String>()
        for owner in lineage {
            toOnes += layout.relationships.filter { $0.declaringEntity == owner.name && !$0.relationship.isToMany }
                .sorted { NameOrder.precedes($0.relationship.name, $1.relationship.name) }
            // An attribute stands for its column, a composite one for each of its leaves'
            // (named by dotted paths, in the layout's order).
            for attribute in owner.attributes.sorted(by: { NameOrder.precedes($0.name, $1.name) })
            where !attribute.isTransient {
                for column in layout.attributes where !claimed.contains(column.attribute.name) {
                    let name = column.attribute.name
                    guard name == attribute.name || name.hasPrefix(attribute.name + ".") else { continue }
                    attributes.append(column)
                    claimed.insert(name)
                }
            }
        }
        // Whatever the model did not explain (a layout built otherwise), in the layout's order.
        attributes += layout.attributes.filter { !claimed.contains($0.attribute.name) }
        var columns: [Column] = toOnes.map { Column(property: $0.relationship.name, group: .foreignKey) }
        for link in toOnes {
            guard case .foreignKey(_, let entityColumn, _) = link.storage, entityColumn != nil else { continue }
            columns.append(Column(property: link.relationship.name, group: .entityKey))
        }
        for link in toOnes {
            guard case .foreignKey(_, _, let orderColumn) = link.storage, orderColumn != nil else { continue }
            columns.append(Column(property: link.relationship.name, group: .orderKey))
        }
        columns += attributes.map { Column(property: $0.attribute.name, group: .attribute) }
        let toManys = layout.relationships.filter(\.relationship.isToMany).sorted {
            NameOrder.precedes($0.relationship.name, $1.relationship.name)
        }
        for group in [Group.toMany, .manyToMany] {
            for link in toManys {
                let inverseIsToMany = model.inverse(of: link.relationship)?.isToMany ?? false
                guard inverseIsToMany == (group == .manyToMany) else { continue }
                columns.append(Column(property: link.relationship.name, group: group))
            }
        }
        self.init(entity: layout.name, columns: columns)
    }

    /// The bytes a mask of this entity has.
    public var byteCount: Int { (columns.count + 7) / 8 }

    /// Every property a bit stands for, each once, by name.
    public var properties: [String] {
        Set(columns.map(\.property)).sorted(by: NameOrder.precedes)
    }

    /// The properties whose bits are set in `mask`, each once, by name (``/MoltModel/NameOrder``); nil
    /// when the mask is too short for this entity (Core Data then reports none). Bytes past
    /// the entity's bits are not read.
    public func properties(in mask: Data) -> [String]? {
        guard mask.count >= byteCount else { return nil }
        let bytes = [UInt8](mask.prefix(byteCount))
        var names = Set<String>()
        for (bit, column) in columns.enumerated() where bytes[bit >> 3] & (0x80 >> UInt8(bit & 7)) != 0 {
            names.insert(column.property)
        }
        return names.sorted(by: NameOrder.precedes)
    }

    /// The mask with the bits of `properties` set (every bit of each); names of no property
    /// of the entity are left out.
    public func mask(for properties: some Sequence<String>) -> Data {
        let wanted = Set(properties)
        var bytes = [UInt8](repeating: 0, count: byteCount)
        for (bit, column) in columns.enumerated() where wanted.contains(column.property) {
            bytes[bit >> 3] |= 0x80 >> UInt8(bit & 7)
        }
        return Data(bytes)
    }
}

extension StoreLayout {
    /// The mask of changed properties of `entity`'s history updates (``HistoryColumnMask``);
    /// nil when the layout has no such entity.
    public func historyColumnMask(of entity: String) -> HistoryColumnMask? {
        self.entity(named: entity).map { HistoryColumnMask($0, model: model) }
    }
}
