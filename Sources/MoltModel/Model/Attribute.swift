public import MoltCore

/// An attribute of an entity, with everything an Xcode model says about it.
///
/// Only some of these take part in the version hash (see ``VersionHasher``): the name, type,
/// optional and transient flags, the hash modifier, external storage and preserve-after-deletion.
public struct Attribute: Sendable, Hashable {
    public var name: String
    public var type: AttributeType
    public var isOptional: Bool
    public var isTransient: Bool
    /// The default value as written in the model (`defaultValueString`).
    public var defaultValue: String?
    /// The minimum as written in the model (`minValueString`): a number, a date's seconds since
    /// 2001, or a string's minimum length.
    public var minimumValue: String?
    /// The maximum, written like ``minimumValue``.
    public var maximumValue: String?
    /// A regular expression string values must match (`regularExpressionString`).
    public var regularExpression: String?
    /// Binary data may live in a file outside the store (`allowsExternalBinaryDataStorage`).
    public var allowsExternalBinaryDataStorage: Bool
    /// The value is kept in persistent history when the object is deleted (`preserveAfterDeletion`).
    public var preservesValueInHistoryOnDeletion: Bool
    /// A transformable attribute's value transformer (`valueTransformerName`).
    public var valueTransformerName: String?
    /// The class of a transformable attribute's value (`customClassName`).
    public var customClassName: String?
    /// Whether the attribute is derived from others (`derived`).
    public var isDerived: Bool
    /// A derived attribute's expression (`derivationExpression`).
    public var derivationExpression: String?
    /// Whether the attribute has a single-property index (`indexed`, an older form of fetch index).
    public var isIndexed: Bool
    /// Whether generated code uses a scalar type (`usesScalarValueType`); code generation only.
    public var usesScalarValueType: Bool
    /// The renaming identifier (Xcode's `elementID`): the attribute's name in an earlier version.
    public var renamingIdentifier: String?
    /// The version hash modifier (`versionHashModifier`).
    public var versionHashModifier: String?
    public var userInfo: [String: String]
    /// The ``Composite`` a composite attribute (type ``AttributeType/composite``) holds, by name
    /// (Xcode's `composite`). Nil for every other type.
    public var compositeName: String?
    /// Where the attribute was read from. Not compared.
    @NotCompared public var location: SourceLocation? = nil

    public init(
        name: String,
        type: AttributeType,
        isOptional: Bool = false,
        isTransient: Bool = false,
        defaultValue: String? = nil,
        minimumValue: String? = nil,
        maximumValue: String? = nil,
        regularExpression: String? = nil,
        allowsExternalBinaryDataStorage: Bool = false,
        preservesValueInHistoryOnDeletion: Bool = false,
        valueTransformerName: String? = nil,
        customClassName: String? = nil,
        isDerived: Bool = false,
        derivationExpression: String? = nil,
        isIndexed: Bool = false,
        usesScalarValueType: Bool = false,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        userInfo: [String: String] = [:],
        compositeName: String? = nil,
        location: SourceLocation? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.defaultValue = defaultValue
        self.minimumValue = minimumValue
        self.maximumValue = maximumValue
        self.regularExpression = regularExpression
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        self.valueTransformerName = valueTransformerName
        self.customClassName = customClassName
        self.isDerived = isDerived
        self.derivationExpression = derivationExpression
        self.isIndexed = isIndexed
        self.usesScalarValueType = usesScalarValueType
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
        self.compositeName = compositeName
        self.location = location
    }

    /// The identifier that stays the same across renames: the renaming identifier when set,
    /// otherwise the name.
    public var canonicalName: String { renamingIdentifier ?? name }

    /// Whether the attribute is a composite's leaf as ``ObjectModel/allAttributes(of:)`` lists it:
    /// its name is a path (`home.city`).
    public var isCompositeLeaf: Bool { name.utf8.contains(UInt8(ascii: ".")) }

    /// The attribute's own name: the last part of a leaf's path, otherwise the name. A leaf's
    /// column is named from it, as Core Data names it.
    public var ownName: Substring {
        guard let dot = name.lastIndex(of: ".") else { return name[...] }
        return name[name.index(after: dot)...]
    }
}
