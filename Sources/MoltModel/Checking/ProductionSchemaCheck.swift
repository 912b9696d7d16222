public import MoltCore

/// Checks that a model version only adds to the schema deployed to CloudKit's Production
/// environment.
///
/// Once a schema is in Production, its record types and fields are immutable: a new version
/// may add record types and add fields to existing ones, never change or remove them (Apple,
/// "Creating a Core Data Model for CloudKit"). Users run old and new app versions side by side,
/// all syncing the same records, so every other change shows one of them records it does not
/// expect. Each such change is an error on the later version, naming both versions, what an
/// older app version would see, and (in the ``/MoltCore/Diagnostic/hint``) what to do
/// instead: Apple's strategies are to add new fields beside the old ones, to version the
/// entities (a new entity that only newer versions read), or to sync a new store with a new
/// container.
///
/// What counts, comparing entities and properties by name (CloudKit names a record type
/// `CD_` and the root entity, a field `CD_` and the property):
/// - an entity removed, renamed (even through a renaming identifier: CloudKit has no
///   renames), given another parent entity (its record type or inherited fields change), or
///   made abstract;
/// - a stored attribute or relationship removed, made transient (no longer synced), or
///   renamed (a renaming identifier included);
/// - an attribute's type or optionality changed;
/// - a relationship's destination, to-one or to-many, inverse, order, counts or optionality
///   changed.
///
/// Additions pass: new entities, new properties, properties moved to a parent entity (every
/// record keeps its fields). Delete rules, defaults, validation bounds, indexes and class
/// names are not part of the CloudKit schema and may change. CloudKit's other rules (a new
/// attribute must be optional or have a default) are checked by ``CloudKitRules``;
/// ``check(_:productionVersion:file:)`` applies both. Only the entities CloudKit holds count
/// (``CloudKitRules/entityNames(of:)``).
///
/// ```swift
/// let versions = try ModelBundle(url: bundleURL).allModels()   // oldest first
/// let problems = try ProductionSchemaCheck.check(versions, productionVersion: "Model 2")
/// ```
public struct ProductionSchemaCheck: Sendable {
    /// One kind of change, as ``/MoltCore/Diagnostic/rule`` names it.
    public enum Change: String, Sendable, CaseIterable {
        case entityRemoved = "production.entity-removed"
        case entityRenamed = "production.entity-renamed"
        case entityParentChanged = "production.entity-parent-changed"
        case entityMadeAbstract = "production.entity-made-abstract"
        case attributeRemoved = "production.attribute-removed"
        case attributeRenamed = "production.attribute-renamed"
        case attributeTypeChanged = "production.attribute-type-changed"
        case attributeOptionalityChanged = "production.attribute-optionality-changed"
        case relationshipRemoved = "production.relationship-removed"
        case relationshipRenamed = "production.relationship-renamed"
        case relationshipDestinationChanged = "production.relationship-destination-changed"
        case relationshipCardinalityChanged = "production.relationship-cardinality-changed"
        case relationshipInverseChanged = "production.relationship-inverse-changed"
        case relationshipOrderChanged = "production.relationship-order-changed"
        case relationshipCountChanged = "production.relationship-count-changed"
        case relationshipOptionalityChanged = "production.relationship-optionality-changed"
    }

    /// The version whose schema is in Production.
    public let production: ObjectModel

    public init(production: ObjectModel) {
        self.production = production
    }

    /// Every change `version` makes to the production schema, as errors located in `version`.
    public func check(_ version: ObjectModel) -> [Diagnostic] {
        var run = ProductionRun(production: production, version: version)
        run.compareEntities()
        return run.diagnostics
    }

    /// The version called `productionVersion` in `versions` (oldest first) and the versions
    /// after it. A name that is no version is an error listing the versions
    /// (``/MoltCore/MoltError/Code-swift.struct/fileReadNoSuchFile``, as for any version named
    /// that does not exist); `file` is the bundle, for the message.
    public static func split(
        _ versions: [ObjectModel], at productionVersion: String, file: String? = nil
    ) throws -> (production: ObjectModel, later: [ObjectModel]) {
        guard let index = versions.firstIndex(where: { $0.name == productionVersion }) else {
            let names = versions.compactMap(\.name).map { "\"\($0)\"" }.joined(separator: ", ")
            throw MoltError(
                .fileReadNoSuchFile,
                "there is no model version \"\(productionVersion)\" to take as the production schema",
                location: file.map { SourceLocation(file: $0) },
                recovery: "Name the version whose schema is deployed to CloudKit's Production environment: \(names).")
        }
        return (versions[index], Array(versions[(index + 1)...]))
    }

    /// CloudKit's rules (``CloudKitRules``) and this check for each version after
    /// `productionVersion` in `versions` (oldest first), version by version.
    public static func check(
        _ versions: [ObjectModel], productionVersion: String, file: String? = nil
    ) throws -> [Diagnostic] {
        let (production, later) = try split(versions, at: productionVersion, file: file)
        let check = ProductionSchemaCheck(production: production)
        return later.flatMap { CloudKitRules().check($0) + check.check($0) }
    }
}

/// Comparing one version with the production schema.
struct ProductionRun {
    let production: ObjectModel
    let version: ObjectModel
    /// The entities CloudKit holds in each.
    let productionEntities: Set<String>
    let versionEntities: Set<String>
    var diagnostics: [Diagnostic] = []

    init(production: ObjectModel, version: ObjectModel) {
        self.production = production
        self.version = version
        productionEntities = CloudKitRules().entityNames(of: production)
        versionEntities = CloudKitRules().entityNames(of: version)
    }

    /// "Model 2", the production version's name.
    var old: String { production.name ?? "the production version" }
    /// "Model 3", the later version's name.
    var new: String { version.name ?? "this version" }
    /// "the production schema (Model 2)".
    var schema: String { production.name.map { "the production schema (\($0))" } ?? "the production schema" }

    /// What to do instead: `first`, then Apple's strategies.
    static func hint(_ first: String) -> String {
        first
            + " CloudKit's production schema only grows; for a bigger change, add a new field beside the old one (older app versions keep using the old one), version the entity (a new entity that only newer app versions read), or sync a new store with a new CloudKit container."
    }

    mutating func report(
        _ change: ProductionSchemaCheck.Change, _ message: String, hint: String, at location: SourceLocation?,
        entity: String, property: String? = nil
    ) {
        diagnostics.append(
            Diagnostic(
                .error, message, location: location ?? version.sourceFile.map { SourceLocation(file: $0) },
                entity: entity, property: property, hint: Self.hint(hint), rule: change.rawValue))
    }

    mutating func compareEntities() {
        for old in production.entities where productionEntities.contains(old.name) {
            guard let new = version.entity(named: old.name) else {
                entityMissing(old)
                continue
            }
            guard versionEntities.contains(new.name) else {
                report(
                    .entityRemoved,
                    "the entity is in a configuration used with CloudKit in \(schema), in none in \(self.new): older app versions keep syncing \(old.name) records, which \(self.new) no longer syncs",
                    hint: "Keep \(old.name) in a configuration used with CloudKit.", at: new.location, entity: old.name)
                continue
            }
            compareHierarchy(old, new)
            compareAttributes(of: old, with: new)
            compareRelationships(of: old, with: new)
        }
    }

    /// A production entity the version has no entity of that name for: renamed or removed.
    mutating func entityMissing(_ old: Entity) {
        if let renamed = version.entities.first(where: {
            $0.renamingIdentifier == old.name && versionEntities.contains($0.name)
        }) {
            report(
                .entityRenamed,
                "renamed from \(old.name) (renaming identifier) since \(schema): CloudKit cannot rename a record type, so older app versions keep syncing \(old.name) records, which \(new) ignores, and never see \(renamed.name) records",
                hint: "Keep the entity's name \(old.name) (its class, representedClassName, may have any name).",
                at: renamed.location, entity: renamed.name)
        } else {
            report(
                .entityRemoved,
                "the entity is in \(schema) but not in \(new): older app versions keep syncing \(old.name) records, which \(new) ignores",
                hint: "Keep \(old.name) in \(new), unused if need be.", at: nil, entity: old.name)
        }
    }

    mutating func compareHierarchy(_ old: Entity, _ new: Entity) {
        if old.parentName != new.parentName {
            let oldRoot = production.root(of: old).name
            let newRoot = version.root(of: new).name
            let effect =
                oldRoot != newRoot
                ? "CloudKit files records under their root entity, so \(old.name) records move from the record type CD_\(oldRoot) to CD_\(newRoot), and older app versions and \(self.new) no longer see each other's \(old.name) objects"
                : "\(old.name) inherits other fields, so older app versions and \(self.new) disagree on what its records hold"
            report(
                .entityParentChanged,
                "the parent entity is \(old.parentName ?? "none") in \(schema) and \(new.parentName ?? "none") in \(self.new): \(effect)",
                hint: "Keep \(old.name)'s parent entity as in \(self.old).", at: new.location, entity: old.name)
        }
        if new.isAbstract && !old.isAbstract {
            report(
                .entityMadeAbstract,
                "the entity is abstract in \(self.new) but not in \(schema): older app versions keep making \(old.name) objects, which \(self.new) cannot hold",
                hint: "Keep \(old.name) concrete (the app may stop making \(old.name) objects).", at: new.location,
                entity: old.name)
        }
    }
}
