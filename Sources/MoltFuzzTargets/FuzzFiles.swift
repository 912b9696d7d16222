public import Foundation
internal import MoltCore
internal import MoltMapping
internal import MoltModel
internal import MoltSQLite
internal import MoltStore

/// The repository's example files the targets use: the Blog models and store, and the
/// expressions of the example mapping files.
public enum FuzzFiles {
    /// The package's root folder (this file is `Sources/MoltFuzzTargets/FuzzFiles.swift`).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let blogBundle = packageRoot.appendingPathComponent("MappingModels/Examples/Blog.xcdatamodeld")
    static let blogStore = packageRoot.appendingPathComponent("MappingModels/Examples/Blog.sqlite")

    /// The two versions of the example Blog model, read once.
    static let blogModels: (ObjectModel, ObjectModel)? = {
        guard let bundle = try? ModelBundle(url: blogBundle), let first = try? bundle.model(named: "Blog"),
            let second = try? bundle.model(named: "Blog 2")
        else { return nil }
        return (first, second)
    }()

    /// Every `value` and `<filter>` of the example mapping files.
    static func exampleExpressions(filtersOnly: Bool) -> [String] {
        let files = [
            "MappingModels/Blog/Blog-to-Blog2.xml", "MappingModels/Contacts/Contacts-to-Contacts2.xml",
            "MappingModels/Contacts/Contacts2-to-Contacts3.xml",
        ]
        var result: [String] = []
        for file in files {
            guard let mapping = try? MappingReader().read(contentsOf: packageRoot.appendingPathComponent(file))
            else { continue }
            for entityMapping in mapping.entityMappings {
                if let filter = entityMapping.filter { result.append(filter.description) }
                guard !filtersOnly else { continue }
                for property in entityMapping.attributeMappings + entityMapping.relationshipMappings {
                    if case .expression(let expression) = property.value { result.append(expression.description) }
                }
            }
        }
        return result
    }

    /// The binary property list in the example store's `Z_METADATA`.
    static func exampleStoreMetadata() -> Data? {
        guard let store = try? SQLiteStore(at: blogStore, unchanging: true) else { return nil }
        return BinaryPropertyListWriter().write(store.metadata.propertyList)
    }
}
