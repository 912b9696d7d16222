import Foundation
internal import MoltCore
public import MoltModel

/// The value transformers Transformable attributes can name, by name.
///
/// `molt` registers every transformer compiled from `Policies/`; an app that embeds Molt
/// registers its own in one call:
///
/// ```swift
/// ValueTransformerRegistry.register([CommaSeparatedTransformer.self])
/// let transformer = try ValueTransformerRegistry.transformer(for: attribute, entity: "Note")
/// ```
///
/// An attribute that names no transformer, or one of ``KeyedArchiveValueTransformer/aliases``,
/// uses the built-in ``KeyedArchiveValueTransformer`` unless a registered transformer has that
/// name. A model may name a transformer with a Swift module prefix (`App.CommaSeparatedTransformer`);
/// the prefix is ignored when looking it up, and kept in messages.
public enum ValueTransformerRegistry {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var types: [String: any AttributeValueTransformer.Type] = [:]

    /// Registers transformer types under their ``AttributeValueTransformer/transformerName``.
    public static func register(_ transformers: [any AttributeValueTransformer.Type]) {
        lock.lock()
        defer { lock.unlock() }
        for transformer in transformers { types[transformer.transformerName] = transformer }
    }

    /// The names of every registered transformer (the built-in one is not listed).
    public static var names: [String] {
        lock.lock()
        defer { lock.unlock() }
        return types.keys.sorted()
    }

    /// The transformer type for `name` (module prefix ignored): a registered one, else the
    /// built-in one for its names and for nil; nil when none has the name.
    public static func transformer(named name: String?) -> (any AttributeValueTransformer.Type)? {
        guard let name, !name.isEmpty else {
            return registered("NSSecureUnarchiveFromData") ?? KeyedArchiveValueTransformer.self
        }
        let bare = String(name.split(separator: ".").last ?? Substring(name))
        if let type = registered(name) ?? registered(bare) { return type }
        if KeyedArchiveValueTransformer.aliases.contains(bare) { return KeyedArchiveValueTransformer.self }
        return nil
    }

    /// A transformer for `attribute` of `entity`, or an error naming the transformer and the
    /// attribute and listing the known ones.
    ///
    /// The built-in transformer writes mutable Foundation classes when the attribute's custom
    /// class is one (`NSMutableArray`…).
    public static func transformer(for attribute: Attribute, entity: String) throws -> any AttributeValueTransformer {
        let name = attribute.valueTransformerName
        guard let type = transformer(named: name) else {
            throw unknown(name ?? "", attribute: attribute, entity: entity)
        }
        let transformer = type.init()
        if let keyed = transformer as? KeyedArchiveValueTransformer {
            keyed.usesMutableClasses = attribute.customClassName?.hasPrefix("NSMutable") ?? false
        }
        return transformer
    }

    private static func registered(_ name: String) -> (any AttributeValueTransformer.Type)? {
        lock.lock()
        defer { lock.unlock() }
        return types[name]
    }

    private static func unknown(_ name: String, attribute: Attribute, entity: String) -> MoltError {
        let registered = names
        let known = (KeyedArchiveValueTransformer.aliases + registered).joined(separator: ", ")
        if name.split(separator: ".").last == "NSUnarchiveFromData" {
            return MoltError(
                .migration,
                "the attribute's value transformer NSUnarchiveFromData stores NSArchiver's old non-keyed archives, which Molt does not read (known transformers: \(known))",
                entity: entity, property: attribute.name,
                recovery:
                    "Register an AttributeValueTransformer called NSUnarchiveFromData that reads these bytes, or copy the attribute's bytes unchanged."
            )
        }
        return MoltError(
            .migration,
            "the attribute names the value transformer \"\(name)\", which is not compiled in (known: \(known))",
            entity: entity, property: attribute.name,
            recovery:
                "Add a class conforming to AttributeValueTransformer called \(name.split(separator: ".").last.map(String.init) ?? name) to Policies/ and rebuild, or register it with ValueTransformerRegistry.register."
        )
    }
}
