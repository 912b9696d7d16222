public import MoltCore

/// What happens to related objects when an object is deleted.
public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
    case nullify = "Nullify"
    case cascade = "Cascade"
    case deny = "Deny"
    case noAction = "No Action"
}

/// A relationship from one entity to another, with everything an Xcode model says about it.
public struct Relationship: Sendable, Hashable {
    public var name: String
    /// The entity the relationship points at.
    public var destinationEntityName: String
    /// The relationship on the destination that points back, if any.
    public var inverseName: String?
    /// The entity that declares the inverse, as the model file names it.
    public var inverseEntityName: String?
    public var isToMany: Bool
    /// Whether a to-many relationship keeps its objects in order.
    public var isOrdered: Bool
    public var isOptional: Bool
    public var isTransient: Bool
    /// The fewest related objects allowed (`minCount`; 0 when absent).
    public var minCount: Int
    /// The most related objects allowed (`maxCount`): 1 for a to-one, 0 for "no limit".
    public var maxCount: Int
    public var deleteRule: DeleteRule
    /// The renaming identifier (Xcode's `elementID`).
    public var renamingIdentifier: String?
    /// The version hash modifier (`versionHashModifier`).
    public var versionHashModifier: String?
    public var userInfo: [String: String]
    /// Where the relationship was read from. Not compared.
    @NotCompared public var location: SourceLocation? = nil

    public init(
        name: String,
        destinationEntityName: String,
        inverseName: String? = nil,
        inverseEntityName: String? = nil,
        isToMany: Bool = false,
        isOrdered: Bool = false,
        isOptional: Bool = true,
        isTransient: Bool = false,
        minCount: Int = 0,
        maxCount: Int? = nil,
        deleteRule: DeleteRule = .nullify,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        userInfo: [String: String] = [:],
        location: SourceLocation? = nil
    ) {
        self.name = name
        self.destinationEntityName = destinationEntityName
        self.inverseName = inverseName
        self.inverseEntityName = inverseEntityName ?? (inverseName == nil ? nil : destinationEntityName)
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.minCount = minCount
        self.maxCount = maxCount ?? (isToMany ? 0 : 1)
        self.deleteRule = deleteRule
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
        self.location = location
    }

    /// The identifier that stays the same across renames.
    public var canonicalName: String { renamingIdentifier ?? name }
}
