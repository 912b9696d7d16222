import Foundation
import MoltCore
import MoltStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The two lists that keep a store's `_EXTERNAL_DATA` folder right whatever happens to a
/// heavyweight migration of a store whose models have attributes with external storage.
///
/// The new store shares the old store's folder: a value carried unchanged keeps its file (the
/// new row names the same file), a new value gets a new file under a new UUID name. So both
/// stores find all their files at every instant, and the swap stays one atomic rename.
///
/// - `Store.sqlite.molt-new-files`: each file the migration creates, written (one `write(2)`)
///   before the file is. If the migration does not finish, these files are removed
///   (``abandon(_:)``), and only these: the old store's files are never touched.
/// - `Store.sqlite.molt-old-files`: written and synced before the swap record, the files the
///   old store refers to and the new one does not. Once the new store is in place they are
///   removed (``finish(_:)``); a `--backup` keeps them, linked.
///
/// Both are idempotent, so recovery can run them again after a crash in the middle.
final class ExternalDataJournal {
    private let path: String
    private let descriptor: Int32

    /// Starts the list of new files (replacing any left over).
    init(_ files: StoreFiles) throws {
        path = files.newExternalFiles
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileOperations.failure("create the list of new files", path) }
    }

    deinit { close(descriptor) }

    /// Adds `name` to the list, before the file is created.
    func record(_ name: String) throws {
        let line = Array((name + "\n").utf8)
        let written = line.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else { throw FileOperations.failure("add to the list of new files", path) }
    }

    /// Writes the list of the old store's files the new store does not refer to, synced.
    static func writeOldFiles(_ names: Set<String>, _ files: StoreFiles) throws {
        try FileOperations.writeDurably(
            Data(names.sorted().map { $0 + "\n" }.joined().utf8), to: files.oldExternalFiles,
            what: "the list of old files")
    }

    /// The new store is in place: removes the old store's files it does not use, then the lists.
    static func finish(_ files: StoreFiles) throws {
        try remove(listedIn: files.oldExternalFiles, files)
        FaultPoint.reach("swap.old-files-removed")
        try removeLists(files)
    }

    /// The migration will not finish: removes the files it created, then the lists.
    static func abandon(_ files: StoreFiles) throws {
        try remove(listedIn: files.newExternalFiles, files)
        try removeLists(files)
    }

    private static func removeLists(_ files: StoreFiles) throws {
        try FileOperations.remove(files.oldExternalFiles + ".tmp")
        try FileOperations.remove(files.oldExternalFiles)
        try FileOperations.remove(files.newExternalFiles)
    }

    /// Removes the files named in the list at `list` (plain names only) from the store's
    /// `_EXTERNAL_DATA` folder, and syncs the folder.
    private static func remove(listedIn list: String, _ files: StoreFiles) throws {
        guard FileOperations.exists(list) else { return }
        let text: String
        do {
            text = try String(contentsOfFile: list, encoding: .utf8)
        } catch {
            throw MoltError(
                .fileReadUnknown, "cannot read the list of files: \(FileOperations.reason(error))",
                location: SourceLocation(file: list))
        }
        let folder = ExternalDataFolder(store: URL(fileURLWithPath: files.store))
        var removed = 0
        for name in text.split(separator: "\n").map(String.init) where ExternalBinaryColumn.isPlainFileName(name) {
            try FileOperations.remove(folder.path(of: name))
            removed += 1
        }
        if removed > 0, folder.exists { try FileSync.sync(path: folder.url.path) }
    }
}
