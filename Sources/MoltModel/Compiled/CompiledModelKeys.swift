/// The keys Core Data's compiled-model classes archive, as far as Molt knows them: any other
/// key on a model, entity, attribute or relationship makes ``CompiledModelDecoder`` stop,
/// because Molt could not tell whether it changes a version hash.
///
/// Seen in a real store (`TestModel.sqlite`, framework version 637): `NSEntities` (an
/// `NSKnownKeysDictionary1`), `NSFetchRequestTemplates`, `NSVersionIdentifiers`; for entities
/// `NSEntityName`, `NSClassNameForEntity`, `NSManagedObjectModel`, `NSSuperentity`,
/// `NSSubentities`, `NSProperties`, `NSUserInfo`, `NSVersionHashModifier`,
/// `NSRenamingIdentifier`; for properties `_P`, `NSPropertyName`, `NSEntity`, `NSIsOptional`,
/// `NSRenamingIdentifier`; for attributes `NSAttributeType`, `NSAttributeValueClassName`,
/// `NSDefaultValue`, `NSValueTransformerName`, `NSFlagsKey`; for relationships `NSMaxCount`,
/// `NSMinCount`, `NSDeleteRule`, `NSDestinationEntity`, `_NSDestinationEntityName`,
/// `NSInverseRelationship`, `_NSInverseRelationshipName`. The others are what Core Data writes
/// for features that store does not use (abstract entities, constraints, fetch indexes,
/// transient, ordered and read-only properties, derived attributes, bounds); their meaning
/// is documented with the code that reads them and has no real archive to check it against.
public enum CompiledModelKeys {
    /// `NSManagedObjectModel`.
    public static let model: Set<String> = [
        "NSEntities", "NSConfigurations", "NSFetchRequestTemplates", "NSVersionIdentifiers",
    ]

    /// `NSEntityDescription`.
    public static let entity: Set<String> = [
        "NSEntityName", "NSClassNameForEntity", "NSIsAbstract", "NSManagedObjectModel", "NSSuperentity",
        "NSSubentities", "NSProperties", "NSUserInfo", "NSVersionHashModifier", "NSRenamingIdentifier",
        "NSUniqueTuples", "NSCoreSpotlightDisplayName", "NSFetchIndexDescriptions", "NSCompoundIndexes",
    ]

    /// `NSPropertyDescription`, the part every property has.
    public static let property: Set<String> = [
        "_P", "NSPropertyName", "NSEntity", "NSIsOptional", "NSIsReadOnly", "NSIsTransient", "NSIndexedBySpotlight",
        "NSIsStoredInTruth", "NSIsOrdered", "NSAllowsCloudEncryption", "NSRenamingIdentifier",
        "NSValidationPredicates", "NSValidationWarnings", "NSUserInfo", "NSVersionHashModifier",
    ]

    /// `NSAttributeDescription`.
    public static let attribute: Set<String> = property.union([
        "NSAttributeType", "NSAttributeValueClassName", "NSDefaultValue", "NSValueTransformerName", "NSIsIndexed",
        "NSFlagsKey", "NSMinValueName", "NSMaxValueName",
    ])

    /// `NSCompositeAttributeDescription` (type 2100): an attribute and its elements. Read in
    /// decompiled Core Data (iOS 18.2 and 26.1), not in a real store's archive.
    public static let compositeAttribute: Set<String> = attribute.union(["NSCompositeElements"])

    /// `NSDerivedAttributeDescription`.
    public static let derivedAttribute: Set<String> = attribute.union([
        "NSDerivationExpression", "NSFilteringPredicate",
    ])

    /// `NSRelationshipDescription`.
    public static let relationship: Set<String> = property.union([
        "NSMaxCount", "NSMinCount", "NSDeleteRule", "NSDestinationEntity", "_NSDestinationEntityName",
        "NSInverseRelationship", "_NSInverseRelationshipName",
    ])
}
