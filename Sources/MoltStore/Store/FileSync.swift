import Foundation
import MoltCore
import MoltSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Forces a file's or folder's contents (a folder: its entries) to stable storage, so that a
/// rename or a new file survives a power loss.
/// (Through ``DatabaseFileAccess``: the file may be a store this process holds SQLite's locks on.)
package enum FileSync {
    package static func sync(path: String) throws {
        let synced: Bool
        do {
            synced = try DatabaseFileAccess.withDescriptor(path) { fsync($0) == 0 }
        } catch {
            throw MoltError(
                .fileWriteUnknown, "cannot open for syncing: \(error.localizedDescription)",
                location: SourceLocation(file: path))
        }
        guard synced else {
            throw MoltError(
                .fileWriteUnknown, "cannot sync to disk: \(String(cString: strerror(errno)))",
                location: SourceLocation(file: path))
        }
    }
}
