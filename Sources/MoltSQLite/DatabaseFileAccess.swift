import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading a database file's bytes outside SQLite (its header, a copy) without dropping the
/// locks SQLite holds on it.
///
/// SQLite locks a database with POSIX advisory locks, which belong to the process and the file:
/// closing *any* descriptor of the file, opened by anyone in the process, releases every lock the
/// process holds on it (SQLite's documentation, "How To Corrupt An SQLite Database File",
/// 2.2). A reader whose shared lock silently vanishes reads pages a writer is changing (a
/// "malformed" store); a migration whose write lock vanishes lets another process write. So
/// while one of this process's connections has the file open (``SQLiteConnection`` registers
/// each), the file is read through one descriptor kept open until the last such connection
/// closes; otherwise through a descriptor opened and closed at once.
///
/// ```swift
/// let header = try DatabaseFileAccess.read(path, count: 100)
/// try DatabaseFileAccess.withDescriptor(path) { descriptor in /* pread */ }
/// ```
public enum DatabaseFileAccess {
    /// A file's identity: device and inode (a path may come to name another file).
    struct Identity: Hashable {
        let device: UInt64
        let inode: UInt64

        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var connections: [Identity: Int] = [:]
    nonisolated(unsafe) private static var kept: [Identity: Int32] = [:]

    /// Records that a connection of this process has the file at `path` open; returns the
    /// identity to give back to ``closed(_:)``.
    static func opened(_ path: String) -> Identity? {
        guard let identity = Identity(path: path) else { return nil }
        lock.lock()
        defer { lock.unlock() }
        connections[identity, default: 0] += 1
        return identity
    }

    /// Whether a connection of this process has the file at `path` open.
    public static func isOpen(_ path: String) -> Bool {
        guard let identity = Identity(path: path) else { return false }
        lock.lock()
        defer { lock.unlock() }
        return connections[identity] != nil
    }

    /// Records that a connection closed; the last one for a file closes the kept descriptor
    /// (no lock of SQLite's can be lost then).
    static func closed(_ identity: Identity?) {
        guard let identity else { return }
        lock.lock()
        defer { lock.unlock() }
        let remaining = (connections[identity] ?? 1) - 1
        if remaining > 0 {
            connections[identity] = remaining
            return
        }
        connections[identity] = nil
        if let descriptor = kept.removeValue(forKey: identity) { close(descriptor) }
    }

    /// Runs `body` with a read-only descriptor of the file at `path` that is safe to use while
    /// SQLite holds locks on it. Throws the `errno` of a failed open as a POSIX error.
    public static func withDescriptor<T>(_ path: String, _ body: (Int32) throws -> T) throws -> T {
        lock.lock()
        if let identity = Identity(path: path), connections[identity] != nil {
            // A connection of this process has it open: read through the kept descriptor,
            // which no other thread may close meanwhile (the lock is held throughout).
            defer { lock.unlock() }
            if let descriptor = kept[identity] { return try body(descriptor) }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            kept[identity] = descriptor
            return try body(descriptor)
        }
        lock.unlock()
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        return try body(descriptor)
    }

    /// A read-only descriptor of a database file held by something other than a connection
    /// (a ``LogView``): it counts as one of the file's users, so the descriptor stays open, and
    /// no lock of this process's connections is dropped, until ``close()``.
    final class Shared: @unchecked Sendable {
        private let identity: Identity?
        let descriptor: Int32
        /// The file's size in bytes when it was opened.
        let size: Int64
        private var closed = false

        init(_ path: String) throws {
            guard let identity = DatabaseFileAccess.opened(path) else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENOENT)
            }
            self.identity = identity
            DatabaseFileAccess.lock.lock()
            defer { DatabaseFileAccess.lock.unlock() }
            let descriptor = kept[identity] ?? open(path, O_RDONLY | O_CLOEXEC)
            var info = stat()
            guard descriptor >= 0, fstat(descriptor, &info) == 0 else {
                let code = errno
                DatabaseFileAccess.lock.unlock()
                DatabaseFileAccess.closed(identity)
                DatabaseFileAccess.lock.lock()
                throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
            }
            kept[identity] = descriptor
            self.descriptor = descriptor
            size = Int64(info.st_size)
        }

        func close() {
            guard !closed else { return }
            closed = true
            DatabaseFileAccess.closed(identity)
        }

        deinit { close() }
    }

    /// Whether another process holds a POSIX lock on `count` bytes of the file at `path` from
    /// `start` (SQLite's locks: a database's lock bytes, its index's dead-man switch). A file
    /// that cannot be opened to ask counts as locked; one that does not exist, as not.
    ///
    /// Closing the descriptor opened to ask drops every POSIX lock this process holds on that
    /// file: ask only about files no connection of this process has open.
    public static func isLockedElsewhere(_ path: String, from start: Int64, count: Int64) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return errno != ENOENT }
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(start)
        lock.l_len = off_t(count)
        guard fcntl(descriptor, F_GETLK, &lock) == 0 else { return true }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// Up to `count` bytes from the start of the file at `path`.
    public static func read(_ path: String, count: Int) throws -> [UInt8] {
        try withDescriptor(path) { descriptor in
            var bytes = [UInt8](repeating: 0, count: count)
            let read = pread(descriptor, &bytes, count, 0)
            guard read >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            return Array(bytes.prefix(read))
        }
    }

    /// Copies the file at `from` into a new file `to` (which must not exist), syncing it,
    /// reading `from` as ``withDescriptor(_:_:)`` does.
    public static func copy(_ from: String, to: String) throws {
        try withDescriptor(from) { source in
            var info = stat()
            guard fstat(source, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let target = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, info.st_mode & 0o777)
            guard target >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            defer { close(target) }
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            var offset: off_t = 0
            while true {
                let read = pread(source, &buffer, buffer.count, offset)
                guard read >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                if read == 0 { break }
                var written = 0
                while written < read {
                    let count = buffer.withUnsafeBytes { pointer in
                        pwrite(target, pointer.baseAddress! + written, read - written, offset + off_t(written))
                    }
                    guard count > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                    written += count
                }
                offset += off_t(read)
            }
            guard fsync(target) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
    }
}
