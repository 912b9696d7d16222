internal import Crypto
public import Foundation
internal import MoltCore

/// Computes Core Data's version hashes, byte for byte.
///
/// A store records one 32-byte hash per entity, and Core Data opens a store only with a model
/// whose hashes equal them. The bytes hashed (SHA-256; integers little-endian; strings UTF-8
/// without a terminator; `[x]` only when present):
///
/// ```
/// property     = SHA256(name ‖ u16 flags ‖ [modifier])        flags: optional 1, transient 2
/// attribute    = SHA256(property ‖ i32 type code ‖ [0x01 external storage] ‖ [0x01 preserve after deletion])
/// relationship = SHA256(property ‖ destination name ‖ [inverse name, unless its own inverse]
///                       ‖ i32 maxCount ‖ i32 minCount ‖ [u16 1 if ordered])
/// composite    = SHA256(hashes of its non-transient leaves, ordered by their own names)
/// entity       = SHA256(name ‖ u8 abstract ‖ [parent's entity hash]
///                       ‖ hashes of every non-transient attribute and relationship, inherited
///                         ones included, ordered by property name
///                       ‖ [modifier] ‖ uniqueness constraints, each as names joined by ".",
///                         ordered, empty ones left out)
/// ```
///
/// Checked against real stores for entities, attributes, to-many relationships, abstract
/// entities, inheritance, modifiers and a uniqueness constraint. Not checked against a real
/// store: ordered relationships, the two optional attribute bytes, the exclusion of transient
/// properties, the self-inverse rule, and whether sub-entities also hash their parent's
/// constraints (Molt hashes only the entity's own). The read-only flag (4) is never set: Xcode's
/// model files have no way to say it.
public enum VersionHasher {
    /// Property flag bits.
    static let optionalFlag: UInt16 = 1
    static let transientFlag: UInt16 = 2

    /// The hash of the property part shared by attributes and relationships.
    public static func propertyHash(name: String, isOptional: Bool, isTransient: Bool, modifier: String?) -> Data {
        var bytes = Bytes()
        bytes.append(name)
        bytes.append(UInt16((isOptional ? optionalFlag : 0) | (isTransient ? transientFlag : 0)))
        if let modifier { bytes.append(modifier) }
        return bytes.sha256
    }

    /// An attribute's version hash.
    public static func hash(of attribute: Attribute) -> Data {
        var bytes = Bytes()
        bytes.append(
            propertyHash(
                name: attribute.name, isOptional: attribute.isOptional, isTransient: attribute.isTransient,
                modifier: attribute.versionHashModifier))
        bytes.append(attribute.type.versionHashCode)
        if attribute.allowsExternalBinaryDataStorage { bytes.append(UInt8(1)) }
        if attribute.preservesValueInHistoryOnDeletion { bytes.append(UInt8(1)) }
        return bytes.sha256
    }

    /// An attribute's version hash in `model`: a composite attribute's is SHA-256 over the
    /// hashes of its non-transient leaves (nested composites flattened), ordered by the leaves'
    /// own names; the composite attribute's own name and flags are not part of it, as in Core
    /// Data. Every other attribute's is ``hash(of:)-(Attribute)``.
    public static func hash(of attribute: Attribute, in model: ObjectModel) -> Data {
        guard attribute.type == .composite else { return hash(of: attribute) }
        let leaves = model.compositeLeaves(of: attribute).map(\.element).filter { !$0.isTransient }
        var bytes = Bytes()
        for leaf in leaves.sorted(by: { NameOrder.precedes($0.name, $1.name) }) {
            bytes.append(hash(of: leaf))
        }
        return bytes.sha256
    }

    /// A relationship's version hash; `declaringEntity` is the entity that declares it.
    public static func hash(of relationship: Relationship, declaredBy declaringEntity: String) -> Data {
        var bytes = Bytes()
        bytes.append(
            propertyHash(
                name: relationship.name, isOptional: relationship.isOptional, isTransient: relationship.isTransient,
                modifier: relationship.versionHashModifier))
        bytes.append(relationship.destinationEntityName)
        if let inverse = relationship.inverseName, !isOwnInverse(relationship, declaredBy: declaringEntity) {
            bytes.append(inverse)
        }
        bytes.append(Int32(clamping: relationship.maxCount))
        bytes.append(Int32(clamping: relationship.minCount))
        if relationship.isOrdered { bytes.append(UInt16(1)) }
        return bytes.sha256
    }

    /// Whether a relationship is its own inverse (`friends` ↔ `friends` on one entity).
    static func isOwnInverse(_ relationship: Relationship, declaredBy entity: String) -> Bool {
        relationship.inverseName == relationship.name
            && (relationship.inverseEntityName ?? relationship.destinationEntityName) == entity
            && relationship.destinationEntityName == entity
    }

    /// Every entity's version hash, by entity name.
    ///
    /// - Throws: ``/MoltCore/MoltError`` (``/MoltCore/MoltError/Code-swift.struct/invalidModel``) when an entity's
    ///   parent is missing or the hierarchy has a cycle.
    public static func entityHashes(of model: ObjectModel) throws -> [String: Data] {
        var memo: [String: Data] = [:]
        for entity in model.entities {
            _ = try entityHash(entity, in: model, memo: &memo, visiting: [])
        }
        return memo
    }

    private static func entityHash(
        _ entity: Entity, in model: ObjectModel, memo: inout [String: Data], visiting: Set<String>
    ) throws -> Data {
        if let known = memo[entity.name] { return known }
        guard !visiting.contains(entity.name) else {
            throw MoltError(
                .invalidModel, "the entity inherits from itself", location: entity.location, entity: entity.name,
                recovery: "Break the cycle of parent entities.")
        }
        var bytes = Bytes()
        bytes.append(entity.name)
        bytes.append(UInt8(entity.isAbstract ? 1 : 0))

        var declared: [(name: String, hash: Data)] = []
        if let parentName = entity.parentName {
            guard let parent = model.entity(named: parentName) else {
                throw MoltError(
                    .invalidModel, "the parent entity \"\(parentName)\" does not exist", location: entity.location,
                    entity: entity.name)
            }
            bytes.append(try entityHash(parent, in: model, memo: &memo, visiting: visiting.union([entity.name])))
        }
        let lineage = model.ancestors(of: entity).reversed() + [entity]
        for owner in lineage {
            for attribute in owner.attributes where !attribute.isTransient {
                declared.append((attribute.name, hash(of: attribute, in: model)))
            }
            for relationship in owner.relationships where !relationship.isTransient {
                declared.append((relationship.name, hash(of: relationship, declaredBy: owner.name)))
            }
        }
        for property in declared.sorted(by: { NameOrder.precedes($0.name, $1.name) }) {
            bytes.append(property.hash)
        }
        if let modifier = entity.versionHashModifier { bytes.append(modifier) }
        let constraints = entity.uniquenessConstraints
            .map { $0.joined(separator: ".") }
            .filter { !$0.isEmpty }
            .sorted(by: NameOrder.precedes)
        for constraint in constraints { bytes.append(constraint) }

        let result = bytes.sha256
        memo[entity.name] = result
        return result
    }

    /// Core Data's `NSStoreModelVersionHashesDigest`: base64 of SHA-512 over the entity names in
    /// ascending order, each followed by its 32-byte hash.
    public static func digest(of hashes: [String: Data]) -> String {
        var bytes = Bytes()
        for name in hashes.keys.sorted(by: NameOrder.precedes) {
            bytes.append(name)
            bytes.append(hashes[name]!)
        }
        return Data(SHA512.hash(data: bytes.storage)).base64EncodedString()
    }

    /// Core Data's model checksum (`NSStoreModelVersionChecksumKey` in a store's metadata, and
    /// `NSManagedObjectModel.versionChecksum`): base64 of SHA-256 over the 32-byte entity
    /// hashes, one after another in ascending order of entity name (``NameOrder``); nothing
    /// else is hashed, not even the names.
    ///
    /// Reproduces the value in a real SwiftData store (framework 1345, three entities whose
    /// metadata lists them in another order than their names'), and matches what the
    /// decompiled `versionChecksum` of two Core Data builds computes (iOS 18.2 and 26.1).
    ///
    /// ```swift
    /// let checksum = VersionHasher.checksum(of: try model.entityVersionHashes())
    /// // 44 base64 characters, e.g. "f2VnefWShYEiB9Sc058A/GWR/33tzv6vFKYxARhArH0="
    /// ```
    public static func checksum(of hashes: [String: Data]) -> String {
        var bytes = Bytes()
        for name in hashes.keys.sorted(by: NameOrder.precedes) {
            bytes.append(hashes[name]!)
        }
        return bytes.sha256.base64EncodedString()
    }
}

/// A little-endian byte buffer for building hash input.
private struct Bytes {
    var storage: [UInt8] = []

    mutating func append(_ string: String) { storage.append(contentsOf: string.utf8) }
    mutating func append(_ data: Data) { storage.append(contentsOf: data) }
    mutating func append(_ value: UInt8) { storage.append(value) }
    mutating func append(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { storage.append(contentsOf: $0) } }
    mutating func append(_ value: Int32) { withUnsafeBytes(of: value.littleEndian) { storage.append(contentsOf: $0) } }

    var sha256: Data { Data(SHA256.hash(data: storage)) }
}

extension ObjectModel {
    /// Every entity's version hash, by entity name. See ``VersionHasher``.
    public func entityVersionHashes() throws -> [String: Data] {
        try VersionHasher.entityHashes(of: self)
    }

    /// Core Data's digest of all entity hashes (`NSStoreModelVersionHashesDigest`).
    public func versionHashesDigest() throws -> String {
        VersionHasher.digest(of: try entityVersionHashes())
    }

    /// Core Data's checksum of the model (`versionChecksum`, recorded in a store's metadata as
    /// `NSStoreModelVersionChecksumKey`). See ``VersionHasher/checksum(of:)``.
    public func versionChecksum() throws -> String {
        VersionHasher.checksum(of: try entityVersionHashes())
    }
}
