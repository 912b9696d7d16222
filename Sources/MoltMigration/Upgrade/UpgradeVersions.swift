public import Foundation
internal import MoltCore
public import MoltModel

/// One schema an upgrade can pass through: the model versions whose entity version hashes are
/// all equal. A store at any of them is at this schema; the names are kept for messages.
///
/// ```swift
/// let versions = try UpgradeVersions(contentsOf: URL(fileURLWithPath: "Blog.xcdatamodeld"))
/// let schema = versions.schema(named: "Blog 2")!
/// print(schema.names, schema.hashes.count)
/// ```
public struct SchemaVersion: Sendable, Hashable, CustomStringConvertible {
    /// The names of the versions with these hashes, in display order.
    public let names: [String]
    /// The models, one per name, in the same order.
    public let models: [ObjectModel]
    /// The entity version hashes the versions share.
    public let hashes: [String: Data]

    /// The first name.
    public var name: String { names[0] }

    /// The model called `name`, or the first one.
    public func model(preferring name: String?) -> ObjectModel {
        if let name, let index = names.firstIndex(of: name) { return models[index] }
        return models[0]
    }

    /// "V2", or "V2 (= V2 copy)" when several versions share the hashes.
    public var description: String {
        names.count == 1 ? names[0] : "\(names[0]) (= \(names.dropFirst().joined(separator: ", ")))"
    }

    /// Whether one of the versions is called `name`.
    public func isNamed(_ name: String) -> Bool {
        names.contains(name)
    }
}

/// Every model version an upgrade may use, grouped into ``SchemaVersion``s by their entity
/// version hashes (versions with identical hashes are one schema: a store cannot tell them
/// apart).
///
/// Read them from a bundle (`.xcdatamodeld`), a folder of `.xcdatamodel` versions, or one
/// version; or give the models. The listing order (names with numbers read as numbers) is for
/// display only: it never orders an upgrade unless ``VersionOrder/byName`` asks for it.
///
/// ```swift
/// let versions = try UpgradeVersions(contentsOf: URL(fileURLWithPath: "Blog.xcdatamodeld"))
/// print(versions.schemas.map(\.description), versions.currentVersionName ?? "none")
/// ```
public struct UpgradeVersions: Sendable {
    /// The schemas, in display order of their first names.
    public let schemas: [SchemaVersion]
    /// The version an upgrade goes to by default (a bundle's current version); nil when none
    /// is marked current.
    public let currentVersionName: String?

    /// Groups `models` (each must have a name) by their hashes.
    public init(models: [ObjectModel], currentVersionName: String?) throws {
        var groups: [(hashes: [String: Data], names: [String], models: [ObjectModel])] = []
        var seen: Set<String> = []
        let sorted = models.sorted { ($0.name ?? "").compare($1.name ?? "", options: [.numeric]) == .orderedAscending }
        for model in sorted {
            guard let name = model.name else {
                throw MoltError(.invalidModel, "a model version given to an upgrade has no name")
            }
            guard seen.insert(name).inserted else {
                throw MoltError(.invalidModel, "two model versions are called \"\(name)\"")
            }
            let hashes = try model.entityVersionHashes()
            if let index = groups.firstIndex(where: { $0.hashes == hashes }) {
                groups[index].names.append(name)
                groups[index].models.append(model)
            } else {
                groups.append((hashes, [name], [model]))
            }
        }
        guard !groups.isEmpty else {
            throw MoltError(.invalidModel, "an upgrade needs at least one model version")
        }
        if let currentVersionName, !seen.contains(currentVersionName) {
            throw MoltError(
                .fileReadNoSuchFile, "there is no model version \"\(currentVersionName)\"",
                recovery: "Versions: \(sorted.compactMap(\.name).joined(separator: ", ")).")
        }
        schemas = groups.map { SchemaVersion(names: $0.names, models: $0.models, hashes: $0.hashes) }
        self.currentVersionName = currentVersionName
    }

    /// Every version of a bundle; its current version is the default destination.
    public init(bundle: ModelBundle) throws {
        try self.init(models: bundle.allModels(), currentVersionName: bundle.currentVersionName)
    }

    /// The versions at `url`: a bundle (`.xcdatamodeld`), a folder of `.xcdatamodel` versions,
    /// a version folder or a `contents` file (one version, which is then current).
    public init(contentsOf url: URL) throws {
        switch try ModelLoader().source(at: url) {
        case .bundle(let bundle): try self.init(bundle: bundle)
        case .model(let model): try self.init(models: [model], currentVersionName: model.name)
        }
    }

    /// The schema holding the version called `name`.
    public func schema(named name: String) -> SchemaVersion? {
        schemas.first { $0.isNamed(name) }
    }

    /// The schema whose hashes are exactly `hashes` (a store's).
    public func schema(matching hashes: [String: Data]) -> SchemaVersion? {
        schemas.first { $0.hashes == hashes }
    }

    /// Every version name, in display order.
    public var allNames: [String] {
        schemas.flatMap(\.names).sorted { $0.compare($1, options: [.numeric]) == .orderedAscending }
    }

    /// The schema called `name`, or an error listing the versions.
    func requireSchema(named name: String, role: String) throws -> SchemaVersion {
        guard let schema = schema(named: name) else {
            throw MoltError(
                .fileReadNoSuchFile, "there is no model version \"\(name)\" (\(role))",
                recovery: "Versions: \(allNames.joined(separator: ", ")).")
        }
        return schema
    }
}
