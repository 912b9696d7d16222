public import Foundation
internal import MoltCore
internal import MoltXML

/// Reads Xcode mapping models (`Name.xcmappingmodel`, whose `xcmapping.xml` Xcode writes in
/// Core Data's XML store format) into Molt's ``MappingModel``, so that a project's existing
/// mapping models run, check and convert like Molt's own mapping files.
///
/// ```swift
/// let mapping = try XcodeMappingReader().read(contentsOf: URL(fileURLWithPath: "Model9to10.xcmappingmodel"))
/// print(MappingWriter().text(of: mapping))   // the same mapping in Molt's format
/// ```
///
/// What is read, and how:
///
/// - The mapping model object (`XDDEVMAPPINGMODEL`) lists its entity mappings
///   (`entitymappings`); only those are read (files keep orphaned objects), in the order of
///   their `mappingnumber`. The model version names come from `sourcemodelpath` and
///   `destinationmodelpath` (`…/Model.xcdatamodeld/Model 9.xcdatamodel` → `Model 9`).
/// - An entity mapping's name is its `name`, else `<Source>To<Destination>` as Core Data names
///   it, else (one entity only) `Add<Destination>` or `Remove<Source>` as Molt's inference does.
/// - Its kind comes from `mappingtypename` (`Add`, `Remove`, `Copy`, `Transform`, `Custom`).
///   `Undefined`, which Xcode writes for a mapping whose type was never chosen, is a custom
///   mapping when it names a policy (what real apps' custom mappings look like: the policy
///   makes the objects), and otherwise takes the kind its entities give: both → transform, a
///   destination only → add, a source only → remove. An
///   add mapping keeps only its destination and a remove mapping only its source: Core Data
///   makes no objects for them, so their property mappings never run and are left out. A copy
///   mapping with value expressions becomes a transform mapping (Molt's copy lists none).
/// - The policy (`migrationpolicyclassname`) is kept whole (`App.MyPolicy`); like a policy in
///   a Molt file, it is looked up without the module prefix.
/// - User info (`userinfodata`) becomes `<user-info>` entries; the source fetch
///   (`sourceexpressiondata`) becomes the filter (see `ArchivedSourceFetch`).
/// - A property mapping with a value expression (`valueexpressiondata`, see
///   `ArchivedExpressionDecoder`) becomes an explicit value; a constant nil is `nil` (no
///   value). A property mapping without one is Xcode's default, which Xcode works out from
///   the models when it compiles the mapping: `$source.<name>` when the source entity has a
///   property of that name (none otherwise: an attribute keeps its model default, a
///   relationship stays empty, whatever renaming identifiers say), and for a relationship
///   `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "<Mapping>", $source.<name>)`
///   through the mapping of its objects. Molt computes exactly these from the models at
///   migration time (``MappingResolver`` with ``MappingModel/PropertyDefaults/sameName``, the
///   read model's setting), so such a property is left out, as `molt infer` leaves out what it
///   infers; written out literally, `$source.<name>` would be wrong for a property new in the
///   destination. So a to-one that became a to-many under a new name is left to the policy,
///   as in Core Data.
///
/// Every problem is a ``/MoltCore/MoltError`` naming the file, line, entity mapping and property: XML
/// that is not well-formed, a reference to an object that is not in the file, an archive
/// class or function Molt does not understand. Unknown XML attributes are ignored (Xcode adds
/// editor settings over time); unknown archive content is refused.
public struct XcodeMappingReader {
    public init() {}

    /// Whether `url` is an Xcode mapping model: a `.xcmappingmodel` folder, a folder holding an
    /// `xcmapping.xml`, or an `xcmapping.xml` file.
    public static func isXcodeMappingModel(_ url: URL) -> Bool {
        if url.pathExtension.lowercased() == "xcmappingmodel" || url.lastPathComponent == "xcmapping.xml" {
            return true
        }
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) && isFolder.boolValue
            && FileManager.default.fileExists(atPath: url.appendingPathComponent("xcmapping.xml").path)
    }

    /// Reads the mapping model at `url`: a `.xcmappingmodel` folder or its `xcmapping.xml`.
    /// `displayName` (default: the path) names it in messages.
    public func read(contentsOf url: URL, displayName: String? = nil) throws -> MappingModel {
        try readImport(contentsOf: url, displayName: displayName).mapping
    }

    /// Reads the mapping model at `url`, with the model paths Xcode recorded.
    public func readImport(contentsOf url: URL, displayName: String? = nil) throws -> XcodeMappingImport {
        let name = displayName ?? url.path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw FileErrors.missing(name)
        }
        var file = url
        var fileName = name
        if isFolder.boolValue {
            file = url.appendingPathComponent("xcmapping.xml")
            fileName = (name.hasSuffix("/") ? name : name + "/") + "xcmapping.xml"
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw MoltError(
                    .fileReadNoSuchFile, "the folder has no xcmapping.xml, so it is not an Xcode mapping model",
                    location: SourceLocation(file: name))
            }
        }
        let limit = SafeXMLParser().maximumFileSize
        let data: Data
        do {
            let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
            guard size <= limit else {
                throw MoltError(
                    .fileReadCorruptFile, "the file is \(size) bytes, more than the \(limit) accepted",
                    location: SourceLocation(file: fileName))
            }
            data = try Data(contentsOf: file)
        } catch let error as MoltError {
            throw error
        } catch {
            throw FileErrors.readFailed(fileName, underlying: error)
        }
        return try readImport(data, file: fileName)
    }

    /// Reads an `xcmapping.xml` held in memory; `file` names it in messages.
    public func read(_ data: Data, file: String) throws -> MappingModel {
        try readImport(data, file: file).mapping
    }

    /// Reads an `xcmapping.xml` held in memory, with the model paths Xcode recorded.
    public func readImport(_ data: Data, file: String) throws -> XcodeMappingImport {
        let document = try XcodeMappingDocument(data, file: file)
        let models = document.objects(ofType: "XDDEVMAPPINGMODEL")
        guard let root = models.first else {
            throw MoltError(
                .fileReadCorruptFile, "the file has no mapping model object (XDDEVMAPPINGMODEL)",
                location: SourceLocation(file: file))
        }
        guard models.count == 1 else {
            throw MoltError(
                .fileReadCorruptFile,
                "the file has \(models.count) mapping model objects (XDDEVMAPPINGMODEL); it should have one",
                location: document.location(of: models[1]))
        }
        guard root.relationships["entitymappings"] != nil else {
            throw MoltError(
                .fileReadCorruptFile,
                "the mapping model object \(root.id) has no entitymappings list, so nothing says which entity mappings it has",
                location: document.location(of: root))
        }
        let sourcePath = document.string("sourcemodelpath", of: root)
        let destinationPath = document.string("destinationmodelpath", of: root)
        var mapping = MappingModel(
            sourceModelName: sourcePath.flatMap(Self.versionName),
            destinationModelName: destinationPath.flatMap(Self.versionName),
            propertyDefaults: .sameName, sourceFile: file)
        var read: [(number: Int?, position: Int, mapping: EntityMapping)] = []
        for (position, object) in try document.targets(of: "entitymappings", in: root, type: "XDDEVENTITYMAPPING")
            .enumerated()
        {
            let entityMapping = try XcodeEntityMappingReader(document: document, object: object).entityMapping()
            read.append((try document.integer("mappingnumber", of: object), position, entityMapping))
        }
        read.sort { ($0.number ?? Int.max, $0.position) < ($1.number ?? Int.max, $1.position) }
        var names: [String: EntityMapping] = [:]
        for (_, _, entityMapping) in read {
            if let other = names[entityMapping.name] {
                throw MoltError(
                    .fileReadCorruptFile,
                    "two entity mappings are called \"\(entityMapping.name)\" (the other is on line \(other.location?.line ?? 0))",
                    location: entityMapping.location, entity: entityMapping.name,
                    recovery: "Give one of them a name in Xcode's mapping model editor.")
            }
            names[entityMapping.name] = entityMapping
            mapping.entityMappings.append(entityMapping)
        }
        return XcodeMappingImport(mapping: mapping, sourceModelPath: sourcePath, destinationModelPath: destinationPath)
    }

    /// The version name in a model path Xcode recorded: its last component without
    /// `.xcdatamodel` (nil for a path that names no version).
    static func versionName(_ path: String) -> String? {
        guard let last = path.split(separator: "/").last, last.lowercased().hasSuffix(".xcdatamodel") else {
            return nil
        }
        let name = String(last.dropLast(".xcdatamodel".count))
        return name.isEmpty ? nil : name
    }
}

/// An Xcode mapping model as read: Molt's mapping model, and the paths of the two models that
/// Xcode recorded (relative to the project Xcode saw, such as
/// `Storage/Model/WooCommerce.xcdatamodeld/Model 9.xcdatamodel`).
public struct XcodeMappingImport: Sendable, Hashable {
    public var mapping: MappingModel
    public var sourceModelPath: String?
    public var destinationModelPath: String?

    public init(mapping: MappingModel, sourceModelPath: String? = nil, destinationModelPath: String? = nil) {
        self.mapping = mapping
        self.sourceModelPath = sourceModelPath
        self.destinationModelPath = destinationModelPath
    }
}
