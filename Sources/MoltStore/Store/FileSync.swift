import Foundation
import MoltCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Forces a file's or folder's contents (a folder: its entries) to stable storage, so that a
/// rename or a new file survives a power loss.
package enum FileSync {
    package static func sync(path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw MoltError(
                .fileWriteUnknown, "cannot open for syncing: \(String(cString: strerror(errno)))",
                location: SourceLocation(file: path))
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw MoltError(
                .fileWriteUnknown, "cannot sync to disk: \(String(cString: strerror(errno)))",
                location: SourceLocation(file: path))
        }
    }
}
