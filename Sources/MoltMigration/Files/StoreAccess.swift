internal import Foundation
internal import MoltCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether this process may do what a run does to a store's files, asked before any pass: write
/// the store and its companions, and create, rename and remove files in its folder. A run that
/// cannot would otherwise fail at its end ("disk I/O error" once every pass has run), leaving
/// companions SQLite created with the store's read-only mode.
enum StoreAccess {
    /// Throws 513 (NSFileWriteNoPermissionError), naming the first file or folder the run could
    /// not write and how to fix it.
    static func requireWritable(_ store: URL) throws {
        let path = store.path
        let folder = store.deletingLastPathComponent().path
        if access(folder, W_OK | X_OK) != 0 {
            throw refusal(
                folder, "the store's folder is not writable, and a migration writes beside the store",
                fix: "Make the folder writable (chmod u+w '\(folder)'), or migrate a copy of the store elsewhere.")
        }
        for file in [path] + StoreFiles.companions(of: path) where FileOperations.exists(file) {
            if access(file, R_OK | W_OK) != 0 {
                throw refusal(
                    file, "the file is not writable (mode \(mode(of: file))), and a migration writes the store",
                    fix: "Make it writable (chmod u+w '\(file)') and run again.")
            }
        }
    }

    private static func refusal(_ path: String, _ message: String, fix: String) -> MoltError {
        MoltError(.fileWriteNoPermission, message, location: SourceLocation(file: path), recovery: fix)
    }

    private static func mode(of path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "unknown" }
        return "0" + String(info.st_mode & 0o7777, radix: 8)
    }
}
