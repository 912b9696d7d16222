public import Foundation
internal import MoltCore

/// What a model path names: one model version, or a bundle of versions.
public enum ModelSource: Sendable {
    case model(ObjectModel)
    case bundle(ModelBundle)

    /// The models to consider: the one model, or every version of the bundle.
    public func candidateModels() throws -> [ObjectModel] {
        switch self {
        case .model(let model): [model]
        case .bundle(let bundle): try bundle.allModels()
        }
    }
}

/// Finds and reads models from any of the paths a user may give: a bundle (`.xcdatamodeld`),
/// a version folder (`.xcdatamodel`), or a `contents` file.
///
/// ```swift
/// let model = try ModelLoader().load(at: URL(fileURLWithPath: "Blog.xcdatamodeld"))  // current version
/// ```
public struct ModelLoader {
    public init() {}

    /// Reads the model at `url`; for a bundle, its current version.
    public func load(at url: URL) throws -> ObjectModel {
        switch try source(at: url) {
        case .model(let model): return model
        case .bundle(let bundle): return try bundle.currentModel()
        }
    }

    /// Says what `url` names, reading a single model at once and a bundle's listing only.
    public func source(at url: URL) throws -> ModelSource {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw FileErrors.missing(url.path)
        }
        if !isFolder.boolValue {
            try Self.refuseStore(at: url)
            return .model(try XcodeModelReader().read(contentsOf: url, name: Self.versionName(forContents: url)))
        }
        if url.pathExtension == "xcdatamodeld"
            || manager.fileExists(atPath: url.appendingPathComponent(".xccurrentversion").path)
        {
            return .bundle(try ModelBundle(url: url))
        }
        if url.pathExtension == "xcdatamodel" || Self.hasVersionFiles(url) {
            return .model(try loadVersion(at: url, name: url.deletingPathExtension().lastPathComponent))
        }
        if (try? manager.contentsOfDirectory(atPath: url.path))?.contains(where: { $0.hasSuffix(".xcdatamodel") })
            == true
        {
            return .bundle(try ModelBundle(url: url))
        }
        throw MoltError(
            .fileReadCorruptFile, "this folder is not a Core Data model (.xcdatamodeld or .xcdatamodel)",
            location: SourceLocation(file: url.path))
    }

    /// A SQLite file (a store) given where a model belongs is named as such, rather than read
    /// as XML that does not start with a tag.
    static func refuseStore(at url: URL) throws {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 16), head == Data("SQLite format 3\0".utf8) else { return }
        throw MoltError(
            .fileReadCorruptFile, "this is an SQLite store, not a Core Data model",
            location: SourceLocation(file: url.path),
            recovery:
                "Give the model: the app's .xcdatamodeld bundle, one of its .xcdatamodel versions, or a model written by `molt extract-model` from the store."
        )
    }

    /// Reads a version folder (`.xcdatamodel`).
    public func loadVersion(at url: URL, name: String) throws -> ObjectModel {
        let manager = FileManager.default
        let contents = url.appendingPathComponent("contents")
        if manager.fileExists(atPath: contents.path) {
            return try XcodeModelReader().read(contentsOf: contents, name: name)
        }
        if manager.fileExists(atPath: url.appendingPathComponent("elements").path) {
            throw MoltError(
                .fileReadCorruptFile,
                "unsupported legacy model format: this version has an \"elements\" file (written by Xcode before 4.1) and no \"contents\" file",
                location: SourceLocation(file: url.path),
                recovery: "Open the model in a current Xcode and save it, which rewrites it as XML.")
        }
        throw MoltError(
            .fileReadNoSuchFile, "the model version has no \"contents\" file", location: SourceLocation(file: url.path))
    }

    private static func hasVersionFiles(_ url: URL) -> Bool {
        let manager = FileManager.default
        return manager.fileExists(atPath: url.appendingPathComponent("contents").path)
            || manager.fileExists(atPath: url.appendingPathComponent("elements").path)
    }

    /// `…/Name.xcdatamodel/contents` → "Name"; otherwise the file's name.
    private static func versionName(forContents url: URL) -> String {
        let folder = url.deletingLastPathComponent()
        if url.lastPathComponent == "contents", folder.pathExtension == "xcdatamodel" {
            return folder.deletingPathExtension().lastPathComponent
        }
        return url.deletingPathExtension().lastPathComponent
    }
}
