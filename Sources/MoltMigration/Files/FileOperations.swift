import Foundation
import MoltCore
import MoltSQLite
import MoltStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The POSIX file operations the swap relies on, each checked and named in errors: rename
/// (atomic, replacing), hard links, removal, syncing, permissions.
enum FileOperations {
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    static func size(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    static func failure(_ what: String, _ path: String) -> MoltError {
        let reason = String(cString: strerror(errno))
        return MoltError(
            errno == ENOSPC ? .sqlite : .fileWriteUnknown, "cannot \(what): \(reason)",
            location: SourceLocation(file: path))
    }

    /// Renames `from` to `to`, replacing `to` atomically if it exists.
    static func rename(_ from: String, to: String) throws {
        guard Glibc.rename(from, to) == 0 else { throw failure("rename to \(to)", from) }
    }

    /// Removes a file if it exists.
    static func remove(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw failure("remove the file", path) }
    }

    /// Removes a file or folder tree if it exists.
    static func removeTree(_ path: String) throws {
        guard exists(path) else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw MoltError(
                .fileWriteUnknown, "cannot remove: \(error.localizedDescription)", location: SourceLocation(file: path))
        }
    }

    /// Makes `to` another name of the file `from` (a hard link), or, where the file system
    /// has none, a complete copy written beside it first.
    static func linkOrCopy(_ from: String, to: String) throws {
        if link(from, to) == 0 { return }
        try copy(from, to: to)
    }

    /// Writes a complete, synced copy of the file `from` at `to` (never a link: the copy must
    /// not change when `from` is changed in place).
    /// A failed copy leaves nothing behind (on a full disk above all).
    static func copy(_ from: String, to: String) throws {
        let partial = to + ".partial"
        try? remove(partial)
        do {
            do {
                // Through DatabaseFileAccess: the file is often a store this process holds
                // SQLite's locks on, which closing a descriptor of it would drop.
                try DatabaseFileAccess.copy(from, to: partial)
            } catch {
                throw MoltError(
                    .fileWriteUnknown, "cannot copy the file to \(partial): \(reason(error))",
                    location: SourceLocation(file: from))
            }
            try FileSync.sync(path: partial)
            try rename(partial, to: to)
        } catch {
            try? remove(partial)
            throw error
        }
    }

    /// What went wrong, in the system's words when Foundation wraps a system error ("File
    /// too large", "No space left on device") rather than its generic "could not be completed".
    static func reason(_ error: any Error) -> String {
        let error = error as NSError
        // (On Linux the underlying error is not bridged to NSError by `as? NSError` from `Any`.)
        let underlying = (error.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        for candidate in [error, underlying].compactMap({ $0 })
        where candidate.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(candidate.code)))
        }
        if error.domain == NSCocoaErrorDomain, error.code == NSFileWriteOutOfSpaceError {
            return String(cString: strerror(ENOSPC))
        }
        return error.localizedDescription
    }

    /// Links (or copies) a folder tree file by file.
    static func linkOrCopyTree(_ from: String, to: String) throws {
        let manager = FileManager.default
        do {
            try manager.createDirectory(atPath: to, withIntermediateDirectories: true)
            for name in try manager.contentsOfDirectory(atPath: from) {
                let source = from + "/" + name
                var isFolder: ObjCBool = false
                _ = manager.fileExists(atPath: source, isDirectory: &isFolder)
                if isFolder.boolValue {
                    try linkOrCopyTree(source, to: to + "/" + name)
                } else {
                    try linkOrCopy(source, to: to + "/" + name)
                }
            }
        } catch let error as MoltError {
            throw error
        } catch {
            throw MoltError(
                .fileWriteUnknown, "cannot copy the folder: \(error.localizedDescription)",
                location: SourceLocation(file: from))
        }
    }

    /// Writes `data` at `path` so that, whatever happens, `path` holds all of it or does not
    /// exist: written beside it, synced (then `afterSync`), renamed into place, folder synced.
    /// `what` names the file in errors.
    static func writeDurably(_ data: Data, to path: String, what: String, afterSync: () -> Void = {}) throws {
        let temporary = path + ".tmp"
        do {
            try data.write(to: URL(fileURLWithPath: temporary))
        } catch {
            try? remove(temporary)
            throw MoltError(
                .fileWriteUnknown, "cannot write \(what): \(reason(error))", location: SourceLocation(file: temporary))
        }
        try FileSync.sync(path: temporary)
        afterSync()
        try rename(temporary, to: path)
        try syncFolder(of: path)
    }

    /// Syncs a file and the folder it is in.
    static func syncFolder(of path: String) throws {
        try FileSync.sync(
            path: (path as NSString).deletingLastPathComponent.isEmpty
                ? "." : (path as NSString).deletingLastPathComponent)
    }

    /// Gives `path` the permissions (and, when allowed, the owner) of `model`.
    static func copyPermissions(from model: String, to path: String) throws {
        var info = stat()
        guard stat(model, &info) == 0 else { throw failure("read the permissions", model) }
        guard chmod(path, info.st_mode & 0o7777) == 0 else { throw failure("set the permissions", path) }
        _ = chown(path, info.st_uid, info.st_gid)  // only root may change the owner; keep ours otherwise
    }
}
