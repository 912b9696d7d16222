public import Foundation
internal import MoltCore
internal import MoltXML

/// A versioned model bundle as Xcode writes it: a `Name.xcdatamodeld` folder holding one
/// `Version.xcdatamodel` folder per model version, and a `.xccurrentversion` property list
/// naming the current one.
///
/// Version names follow no rule, so the listing order (names compared with numbers read as
/// numbers: "Model 2" before "Model 10") is for display only; which version a store is at comes
/// from version hashes.
public struct ModelBundle: Sendable {
    /// One version folder of the bundle.
    public struct Version: Sendable, Hashable {
        /// The folder's name without `.xcdatamodel`.
        public var name: String
        /// The `.xcdatamodel` folder.
        public var url: URL
    }

    /// The `.xcdatamodeld` folder.
    public let url: URL
    /// The versions, in display order.
    public let versions: [Version]
    /// The current version's name, from `.xccurrentversion` (or the only version's name); nil
    /// when the bundle has several versions and names none current.
    public let currentVersionName: String?

    /// Lists the bundle at `url` and reads its current version marker.
    public init(url: URL) throws {
        self.url = url
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw FileErrors.missing(url.path)
        }
        guard isFolder.boolValue else {
            throw MoltError(
                .fileReadCorruptFile, "a model bundle (.xcdatamodeld) must be a folder",
                location: SourceLocation(file: url.path))
        }
        let names: [String]
        do {
            names = try manager.contentsOfDirectory(atPath: url.path)
        } catch {
            throw FileErrors.readFailed(url.path, underlying: error)
        }
        versions = names.filter { $0.hasSuffix(".xcdatamodel") }
            .map { Version(name: String($0.dropLast(".xcdatamodel".count)), url: url.appendingPathComponent($0)) }
            .sorted { $0.name.compare($1.name, options: [.numeric]) == .orderedAscending }
        guard !versions.isEmpty else {
            throw MoltError(
                .fileReadCorruptFile, "the model bundle holds no .xcdatamodel version folder",
                location: SourceLocation(file: url.path))
        }

        // Xcode sometimes writes .xccurrentversion with an empty dictionary (seen in real
        // projects); like a missing file, that names no current version.
        let marker = url.appendingPathComponent(".xccurrentversion")
        var named: String?
        if manager.fileExists(atPath: marker.path) {
            let plist = try XMLPropertyListReader().read(contentsOf: marker)
            if let value = plist["_XCCurrentVersionName"] {
                guard let current = value.stringValue else {
                    throw MoltError(
                        .fileReadCorruptFile, "_XCCurrentVersionName is a \(value.kindName), not a string",
                        location: SourceLocation(file: marker.path))
                }
                let name = current.hasSuffix(".xcdatamodel") ? String(current.dropLast(".xcdatamodel".count)) : current
                guard versions.contains(where: { $0.name == name }) else {
                    throw MoltError(
                        .fileReadCorruptFile, "the current version \"\(current)\" is not in the bundle",
                        location: SourceLocation(file: marker.path),
                        recovery: "Versions present: \(versions.map(\.name).joined(separator: ", ")).")
                }
                named = name
            }
        }
        currentVersionName = named ?? (versions.count == 1 ? versions[0].name : nil)
    }

    /// The version called `name`.
    public func version(named name: String) -> Version? {
        versions.first { $0.name == name || $0.name + ".xcdatamodel" == name }
    }

    /// Reads the version called `name`.
    public func model(named name: String) throws -> ObjectModel {
        guard let version = version(named: name) else {
            throw MoltError(
                .fileReadNoSuchFile, "the bundle has no version \"\(name)\"", location: SourceLocation(file: url.path),
                recovery: "Versions present: \(versions.map(\.name).joined(separator: ", ")).")
        }
        return try ModelLoader().loadVersion(at: version.url, name: version.name)
    }

    /// Reads the current version.
    public func currentModel() throws -> ObjectModel {
        guard let currentVersionName else {
            throw MoltError(
                .fileReadCorruptFile, "the bundle has several versions and no .xccurrentversion naming the current one",
                location: SourceLocation(file: url.path), recovery: "Name a version folder (.xcdatamodel) directly.")
        }
        return try model(named: currentVersionName)
    }

    /// Reads every version, in display order.
    public func allModels() throws -> [ObjectModel] {
        try versions.map { try ModelLoader().loadVersion(at: $0.url, name: $0.name) }
    }
}
