public import Foundation
internal import MoltCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file a store path names: the one an app opens, and so the one a migration must change.
///
/// - A symbolic link is followed (every link in the path): the app reads the link's target,
///   so the target is migrated where it lives (its new file, swap record and companions are
///   made in the target's folder) and the link is left as it is. Two runs given different
///   paths to one store use the same lock (`MigrationLock`) because both resolve to one file.
/// - A file with several names (hard links) is refused by migrations that replace the file
///   (``requireSingleName()``): a rename gives the new store to one name only, and the others
///   would keep the old one, two diverging stores.
///
/// ```swift
/// let location = try StoreLocation(URL(fileURLWithPath: "link.sqlite"))
/// print(location.url.path)          // /data/real/s.sqlite
/// ```
public struct StoreLocation: Sendable, Hashable {
    /// The path as given.
    public let given: URL
    /// The store file itself, with every symbolic link resolved.
    public let url: URL
    /// How many names (hard links) the file has.
    public let linkCount: Int

    /// Whether the path given goes through a symbolic link.
    public var isLink: Bool { given.standardizedFileURL.path != url.path }

    /// Resolves `url`; a missing file, a loop of links or something that is not a regular file
    /// is an error naming the path.
    public init(_ url: URL) throws {
        given = url
        guard let resolved = realpath(url.path, nil) else {
            let problem = errno
            if problem == ENOENT { throw FileErrors.missing(url.path) }
            throw MoltError(
                .fileReadUnknown,
                "the store's path cannot be resolved: \(String(cString: strerror(problem)))\(problem == ELOOP ? " (a loop of symbolic links)" : "")",
                location: SourceLocation(file: url.path))
        }
        defer { free(resolved) }
        let path = String(cString: resolved)
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileErrors.missing(url.path) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw MoltError(
                .persistentStoreInvalidType,
                path == url.path
                    ? "the store's path is not a file" : "the store's path leads to \(path), which is not a file",
                location: SourceLocation(file: url.path))
        }
        self.url = URL(fileURLWithPath: path)
        linkCount = Int(info.st_nlink)
    }

    /// Refuses a file with several names: replacing it would leave the other names at the old
    /// store.
    public func requireSingleName() throws {
        guard linkCount > 1 else { return }
        throw MoltError(
            .sourceStore,
            "the store file has \(linkCount) names (hard links); replacing it would give the migrated store to this name only and leave the others at the old version",
            location: SourceLocation(file: given.path),
            recovery:
                "Remove the other names of the file (find them with `find / -samefile \(url.path)`), or migrate a copy and put it in place yourself."
        )
    }
}
