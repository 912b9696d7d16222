public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files an interrupted store creation left beside a store: `.<Name>.molt-<UUID>.creating`
/// (where ``SQLiteStore/create(at:layout:options:populate:)`` builds the store) and its
/// `-journal`, `-wal` and `-shm`.
///
/// Molt removes them itself when a creation fails or is cancelled (Ctrl-C, SIGTERM); a process
/// killed with SIGKILL, or an older Molt, leaves them, and nothing else would ever remove
/// these hidden files. ``remove(beside:)`` does, for one store name exactly: another store's
/// files in the same folder, and the store itself, are never touched. A file that a `create`
/// still running in another process is building is left alone: that process holds the file's
/// lock (see `CreatingFile`), which is taken here before anything is removed.
public enum CreationLeftovers {
    /// What ``remove(beside:)`` did.
    public struct Sweep: Sendable, Hashable {
        /// The files removed, by path.
        public var removed: [String] = []
        /// The temporary files of creations still running (their locks are held), by path.
        public var inUse: [String] = []

        public var isEmpty: Bool { removed.isEmpty && inUse.isEmpty }
    }

    /// The temporary file's name that `fileName` is or is a companion of, when it is one of a
    /// creation of the store named `storeName`: `.Notes.sqlite.molt-<UUID>.creating` (a UUID
    /// as Foundation writes it), with `-journal`, `-wal` or `-shm` after it for a companion.
    public static func temporaryFile(_ fileName: String, of storeName: String) -> String? {
        var main = Substring(fileName)
        for suffix in CreatingFile.companionSuffixes where main.hasSuffix(suffix) {
            main = main.dropLast(suffix.count)
            break
        }
        let prefix = ".\(storeName).molt-"
        let ending = ".creating"
        guard main.hasPrefix(prefix), main.hasSuffix(ending) else { return nil }
        let uuid = main.dropFirst(prefix.count).dropLast(ending.count)
        guard uuid.count == 36, let parsed = UUID(uuidString: String(uuid)), parsed.uuidString == uuid else {
            return nil
        }
        return String(main)
    }

    /// Removes what interrupted creations of the store at `store` left beside it (the store
    /// need not exist). Only regular files are removed. A temporary file goes (companions
    /// first) once its lock is taken; one whose lock is held is listed as in use, with its
    /// companions kept. A companion whose temporary file is gone is removed: a running
    /// creation makes its file before SQLite makes any companion, and keeps it until SQLite
    /// has closed the file.
    public static func remove(beside store: URL) -> Sweep {
        let folder = store.deletingLastPathComponent()
        let storeName = store.lastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var byMain: [String: [String]] = [:]
        for name in names {
            guard let main = temporaryFile(name, of: storeName) else { continue }
            byMain[main, default: []].append(name)
        }
        var sweep = Sweep()
        for main in byMain.keys.sorted() {
            let path = folder.appendingPathComponent(main).path
            let companions = byMain[main]!.filter { $0 != main }.sorted().map {
                folder.appendingPathComponent($0).path
            }
            if byMain[main]!.contains(main) {
                guard isRegularFile(path) else { continue }
                let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
                guard descriptor >= 0 else { continue }
                defer { close(descriptor) }
                guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                    sweep.inUse.append(path)
                    continue
                }
                // Still the file locked (not one made since under the same name, which cannot
                // happen with a new UUID, but costs nothing to rule out).
                guard CreatingFile.names(path, descriptor) else { continue }
                for companion in companions where isRegularFile(companion) && unlink(companion) == 0 {
                    sweep.removed.append(companion)
                }
                if unlink(path) == 0 { sweep.removed.append(path) }
            } else {
                for companion in companions where isRegularFile(companion) && unlink(companion) == 0 {
                    sweep.removed.append(companion)
                }
            }
        }
        return sweep
    }

    /// Whether `path` is a regular file (not a link, a folder or anything else).
    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
