public import Foundation

/// The files that belong to a store beside its main file: the write-ahead log (`-wal`), its
/// shared-memory index (`-shm`), a rollback journal (`-journal`) and the external-data folder
/// (`.<Name>_SUPPORT/_EXTERNAL_DATA`). Moving or copying a store without them loses data.
public struct CompanionFiles: Sendable, Hashable {
    /// One companion file or folder and its size in bytes (a folder: the number of entries).
    public struct Entry: Sendable, Hashable {
        public var url: URL
        public var size: Int64
        public var isFolder: Bool
    }

    public var wal: Entry?
    public var sharedMemory: Entry?
    public var journal: Entry?
    public var supportFolder: Entry?
    public var externalData: Entry?

    /// The companions present beside the store at `url`.
    public init(of url: URL) {
        let manager = FileManager.default
        func entry(_ candidate: URL) -> Entry? {
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: candidate.path, isDirectory: &isFolder) else { return nil }
            if isFolder.boolValue {
                let count = (try? manager.contentsOfDirectory(atPath: candidate.path).count) ?? 0
                return Entry(url: candidate, size: Int64(count), isFolder: true)
            }
            let size = (try? manager.attributesOfItem(atPath: candidate.path)[.size] as? Int).flatMap { $0 } ?? 0
            return Entry(url: candidate, size: Int64(size), isFolder: false)
        }
        wal = entry(URL(fileURLWithPath: url.path + "-wal"))
        sharedMemory = entry(URL(fileURLWithPath: url.path + "-shm"))
        journal = entry(URL(fileURLWithPath: url.path + "-journal"))
        let support = Self.supportFolder(of: url)
        supportFolder = entry(support)
        externalData = entry(support.appendingPathComponent("_EXTERNAL_DATA"))
    }

    /// `.<Name>_SUPPORT` beside the store, where Core Data keeps external binary data.
    public static func supportFolder(of url: URL) -> URL {
        let base = url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent(".\(base)_SUPPORT", isDirectory: true)
    }

    /// Every companion present, for listing.
    public var all: [(name: String, entry: Entry)] {
        [
            ("wal", wal), ("shm", sharedMemory), ("journal", journal), ("support", supportFolder),
            ("external data", externalData),
        ]
        .compactMap { name, entry in entry.map { (name, $0) } }
    }
}
