extension CompiledModelArchiver {
    /// The class chains (`$classes`) of Core Data's model classes and the expression and
    /// collection classes a compiled model holds, as a real `Z_MODELCACHE` archives them.
    /// Foundation's own chains come from ``KeyedArchiveBuilder/foundationClassChains``.
    static let classChains: [String: [String]] = [
        "NSEntityDescription": ["NSEntityDescription", "NSObject"],
        "NSAttributeDescription": ["NSAttributeDescription", "NSPropertyDescription", "NSObject"],
        "NSDerivedAttributeDescription": [
            "NSDerivedAttributeDescription", "NSAttributeDescription", "NSPropertyDescription", "NSObject",
        ],
        "NSCompositeAttributeDescription": [
            "NSCompositeAttributeDescription", "NSAttributeDescription", "NSPropertyDescription", "NSObject",
        ],
        "NSRelationshipDescription": ["NSRelationshipDescription", "NSPropertyDescription", "NSObject"],
        "NSFetchedPropertyDescription": ["NSFetchedPropertyDescription", "NSPropertyDescription", "NSObject"],
        "NSKnownKeysDictionary1": [
            "NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary", "NSObject",
        ],
        "NSKnownKeysMappingStrategy1": ["NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy", "NSObject"],
        "NSKeyPathExpression": ["NSKeyPathExpression", "NSFunctionExpression", "NSExpression", "NSObject"],
        "NSFunctionExpression": ["NSFunctionExpression", "NSExpression", "NSObject"],
        "NSSelfExpression": ["NSSelfExpression", "NSExpression", "NSObject"],
        "NSKeyPathSpecifierExpression": ["NSKeyPathSpecifierExpression", "NSExpression", "NSObject"],
        "NSConstantValueExpression": ["NSConstantValueExpression", "NSExpression", "NSObject"],
        "NSVariableExpression": ["NSVariableExpression", "NSExpression", "NSObject"],
    ]
}
