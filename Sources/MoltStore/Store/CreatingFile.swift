internal import Foundation
internal import MoltCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The temporary file a new store is built in (`.<Name>.molt-<UUID>.creating` beside it), held
/// under an exclusive `flock(2)` from the moment it is made until it is moved into place or
/// removed.
///
/// Why a lock: a process killed with SIGKILL (or a power loss) runs no clean-up, so
/// ``CreationLeftovers`` removes such files later. The same name may instead belong to a
/// `create` still running in another process, and removing its file would break that run (its
/// rename would fail, or move a half-built store into place). The file's age cannot tell the
/// two apart (a big seed takes minutes; a killed run's file may be seconds old), nor can a
/// process ID (reused). The lock can: the kernel drops it when its process ends, however it
/// ends, so a file whose lock can be taken has no live owner.
///
/// `flock` locks are separate from the POSIX locks SQLite takes on the same file (on Linux and
/// the BSDs), and the descriptor is closed only after SQLite's connection is, so it never
/// releases SQLite's locks (see ``DatabaseFileAccess``).
struct CreatingFile {
    let url: URL
    private let descriptor: Int32

    /// The companions SQLite may make beside the file.
    static let companionSuffixes = ["-journal", "-wal", "-shm"]

    /// The name of a temporary file for the store named `storeName`.
    static func name(for storeName: String, uuid: UUID = UUID()) -> String {
        ".\(storeName).molt-\(uuid.uuidString).creating"
    }

    /// Makes a new, empty temporary file beside `store` and locks it.
    ///
    /// The file is made (`O_EXCL`) before it is locked, so for an instant it exists unlocked; a
    /// recovery that took the lock then and removed the file would leave this process holding
    /// a lock on a file no longer at the path. The path is therefore checked to still name the
    /// locked file once the lock is held; from then on nobody else can take the lock, so
    /// nobody removes the file.
    static func make(beside store: URL) throws -> CreatingFile {
        let url = store.deletingLastPathComponent().appendingPathComponent(name(for: store.lastPathComponent))
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let number = errno
            let denied = number == EACCES || number == EPERM || number == EROFS
            throw MoltError(
                denied ? .fileWriteNoPermission : .fileWriteUnknown,
                "cannot make the temporary file the store is built in: \(String(cString: strerror(number)))",
                location: SourceLocation(file: url.path),
                recovery: denied ? "Check the folder's permissions." : nil)
        }
        guard flock(descriptor, LOCK_EX) == 0, Self.names(url.path, descriptor) else {
            close(descriptor)
            throw MoltError(
                .fileWriteUnknown, "the temporary file was removed by another process as it was made",
                location: SourceLocation(file: url.path), recovery: "Run the command again.")
        }
        return CreatingFile(url: url, descriptor: descriptor)
    }

    /// Whether `path` names the file open as `descriptor` (same device and inode).
    static func names(_ path: String, _ descriptor: Int32) -> Bool {
        var atPath = stat()
        var open = stat()
        guard stat(path, &atPath) == 0, fstat(descriptor, &open) == 0 else { return false }
        return atPath.st_dev == open.st_dev && atPath.st_ino == open.st_ino
    }

    /// Removes the companions, then the file (so an interruption in between leaves the file,
    /// which ``CreationLeftovers`` finds by its name), still under the lock.
    func remove() {
        for suffix in Self.companionSuffixes {
            unlink(url.path + suffix)
        }
        if Self.names(url.path, descriptor) { unlink(url.path) }
    }

    /// Releases the lock. Call it once SQLite's connection to the file is closed.
    func release() {
        close(descriptor)
    }
}
