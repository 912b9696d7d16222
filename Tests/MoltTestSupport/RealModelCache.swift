public import Foundation
internal import Molt

/// The real store with an embedded model (`coredatastack/TestModel.sqlite`, made by Core Data
/// from `Sample.xcdatamodeld/TestModel.xcdatamodel`), always read from a copy.
public enum RealModelCache {
    /// The store in the fixtures. Only call from tests enabled on ``Fixtures/available``.
    public static var storeURL: URL { Fixtures.real("coredatastack/TestModel.sqlite") }

    /// The model bundle the store was made from.
    public static var bundleURL: URL { Fixtures.real("coredatastack/Sample.xcdatamodeld") }

    /// Copies the store into `folder` and returns the copy.
    public static func copyStore(into folder: TemporaryDirectory) throws -> URL {
        try folder.copy(storeURL)
    }

    /// The raw `Z_MODELCACHE` blob, read from a copy of the store opened read-only.
    public static func blob() throws -> Data {
        let folder = TemporaryDirectory("molt-modelcache")
        let store = try SQLiteStore(at: try copyStore(into: folder), readOnly: true)
        defer { store.connection.close() }
        guard let blob = try store.modelCacheData() else {
            throw MoltError(.fileReadNoSuchFile, "the real store has no model cache")
        }
        return blob
    }

    /// The entity version hashes in the store's `Z_METADATA` (`NSStoreModelVersionHashes`).
    public static func storeHashes() throws -> [String: Data] {
        let folder = TemporaryDirectory("molt-modelcache")
        let store = try SQLiteStore(at: try copyStore(into: folder), readOnly: true)
        defer { store.connection.close() }
        return store.metadata.entityVersionHashes
    }

    /// Every model version (`contents` file) under the real fixtures, by path.
    public static func allModelContents() -> [URL] {
        guard let root = Fixtures.realFolder,
            let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        else { return [] }
        return walker.compactMap { $0 as? URL }.filter {
            $0.lastPathComponent == "contents" && $0.deletingLastPathComponent().pathExtension == "xcdatamodel"
        }.sorted { $0.path < $1.path }
    }
}
