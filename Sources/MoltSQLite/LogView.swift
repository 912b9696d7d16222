internal import CSQLite
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A database file as SQLite would see it with a write-ahead log's committed frames applied,
/// opened by SQLite through a VFS of Molt's own that reads the two files and writes, locks and
/// creates nothing: the files are left exactly as they are, whatever the log holds.
///
/// Each page comes from the log's last committed copy of it, else from the database file;
/// the database ends where the log's last commit says. The header's journal-mode bytes read
/// as a rollback journal's, so SQLite looks for no log of its own. Without a log, the view is
/// the database file alone, read the same way.
///
/// ```swift
/// let view = try LogView(database: path, log: WriteAheadLog.read(path + "-wal"))
/// let connection = try view.connection()    // read-only; close it before the view goes
/// let check = try connection.scalar("PRAGMA quick_check")
/// ```
public final class LogView: @unchecked Sendable {
    /// The page size the view reads with (the database header's, or the log's without one).
    public let pageSize: Int
    /// The view's size in pages.
    public let pageCount: UInt32
    /// The database file's size in whole pages.
    public let filePages: UInt32
    let log: WriteAheadLog?
    let name: String
    private let database: DatabaseFileAccess.Shared
    private let logDescriptor: Int32

    /// A view of the database at `path` with `log` applied (nil: the file alone).
    public init(database path: String, log: WriteAheadLog?) throws {
        database = try DatabaseFileAccess.Shared(path)
        let header = try DatabaseFileAccess.read(path, count: 100)
        let stored = header.count >= 18 ? Int(header[16]) << 8 | Int(header[17]) : 0
        pageSize = stored == 1 ? 65536 : (stored >= 512 ? stored : (log?.pageSize ?? 4096))
        filePages = UInt32(clamping: database.size / Int64(pageSize))
        self.log = log
        if let log, log.committedFrames > 0 {
            pageCount = log.databasePages
            logDescriptor = open(log.path, O_RDONLY | O_CLOEXEC)
            guard logDescriptor >= 0 else {
                database.close()
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        } else {
            pageCount = filePages
            logDescriptor = -1
        }
        name = "molt-logview-\(UUID().uuidString)"
        LogViewFileSystem.register(self)
    }

    deinit {
        LogViewFileSystem.unregister(name)
        if logDescriptor >= 0 { close(logDescriptor) }
        database.close()
    }

    /// A read-only connection to the view; it must be closed before the view is released.
    public func connection() throws -> SQLiteConnection {
        try SQLiteConnection(path: name, mode: .readOnly, logger: nil, vfs: LogViewFileSystem.name)
    }

    /// The pages of the view that are in neither the database file nor the log: a log whose
    /// last commit makes the database longer than the file without holding the pages between
    /// (which no log of this file can do). Up to `limit` of them.
    public func missingPages(limit: Int = 5) -> [UInt32] {
        guard let log, pageCount > filePages else { return [] }
        var missing: [UInt32] = []
        var page = filePages + 1
        while page <= pageCount, missing.count < limit {
            if log.pageOffsets[page] == nil { missing.append(page) }
            page += 1
        }
        return missing
    }

    /// Reads `count` bytes at `offset` of the view; false when the view ends first (the rest
    /// is zeros).
    func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> Bool {
        var done = 0
        let size = Int64(pageSize)
        while done < count {
            let position = offset + Int64(done)
            let page = UInt32(clamping: position / size + 1)
            let within = Int(position % size)
            let chunk = min(count - done, pageSize - within)
            if page > pageCount {
                memset(buffer + done, 0, count - done)
                return false
            }
            if let frame = log?.pageOffsets[page] {
                guard fill(buffer + done, chunk, from: logDescriptor, at: frame + Int64(within)) else { return false }
            } else if page <= filePages {
                guard fill(buffer + done, chunk, from: database.descriptor, at: position) else { return false }
            } else {
                memset(buffer + done, 0, chunk)
            }
            done += chunk
        }
        // Bytes 18 and 19 (file format versions) say a rollback journal: SQLite looks for no log.
        for index in [18, 19] where Int64(index) >= offset && Int64(index) < offset + Int64(count) {
            buffer.storeBytes(of: UInt8(1), toByteOffset: Int(Int64(index) - offset), as: UInt8.self)
        }
        return true
    }

    private func fill(_ target: UnsafeMutableRawPointer, _ count: Int, from descriptor: Int32, at offset: Int64) -> Bool
    {
        var done = 0
        while done < count {
            let read = pread(descriptor, target + done, count - done, off_t(offset) + off_t(done))
            if read < 0, errno == EINTR { continue }
            if read <= 0 {
                memset(target + done, 0, count - done)
                return read == 0
            }
            done += read
        }
        return true
    }
}

/// The VFS behind ``LogView``: registered once, under ``name``; it opens only the views that
/// exist, by their names, read-only.
enum LogViewFileSystem {
    static let name = "molt-logview"

    private static let mutex = NSLock()
    nonisolated(unsafe) private static var views: [String: LogView] = [:]

    static func register(_ view: LogView) {
        _ = registered
        mutex.lock()
        views[view.name] = view
        mutex.unlock()
    }

    static func unregister(_ name: String) {
        mutex.lock()
        views[name] = nil
        mutex.unlock()
    }

    static func view(named name: String) -> LogView? {
        mutex.lock()
        defer { mutex.unlock() }
        return views[name]
    }

    /// Each open file: SQLite's `sqlite3_file` (its methods) followed by the view, retained.
    private static let fileSize = MemoryLayout<sqlite3_file>.stride + MemoryLayout<UnsafeRawPointer>.stride

    private static func view(of file: UnsafeMutablePointer<sqlite3_file>?) -> LogView? {
        guard let file else { return nil }
        let slot = UnsafeMutableRawPointer(file) + MemoryLayout<sqlite3_file>.stride
        guard let pointer = slot.load(as: UnsafeRawPointer?.self) else { return nil }
        return Unmanaged<LogView>.fromOpaque(pointer).takeUnretainedValue()
    }

    nonisolated(unsafe) private static let methods: UnsafeMutablePointer<sqlite3_io_methods> = {
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: sqlite3_io_methods())
        methods.pointee.iVersion = 1
        methods.pointee.xClose = { file in
            guard let file else { return SQLITE_OK }
            let slot = UnsafeMutableRawPointer(file) + MemoryLayout<sqlite3_file>.stride
            if let pointer = slot.load(as: UnsafeRawPointer?.self) {
                Unmanaged<LogView>.fromOpaque(pointer).release()
                slot.storeBytes(of: nil, as: UnsafeRawPointer?.self)
            }
            return SQLITE_OK
        }
        methods.pointee.xRead = { file, buffer, count, offset in
            guard let view = LogViewFileSystem.view(of: file), let buffer else { return SQLITE_IOERR }
            return view.read(into: buffer, count: Int(count), at: offset) ? SQLITE_OK : SQLITE_IOERR | (2 << 8)
        }
        methods.pointee.xWrite = { _, _, _, _ in SQLITE_READONLY }
        methods.pointee.xTruncate = { _, _ in SQLITE_READONLY }
        methods.pointee.xSync = { _, _ in SQLITE_OK }
        methods.pointee.xFileSize = { file, size in
            guard let view = LogViewFileSystem.view(of: file) else { return SQLITE_IOERR }
            size?.pointee = sqlite3_int64(view.pageCount) * sqlite3_int64(view.pageSize)
            return SQLITE_OK
        }
        methods.pointee.xLock = { _, _ in SQLITE_OK }
        methods.pointee.xUnlock = { _, _ in SQLITE_OK }
        methods.pointee.xCheckReservedLock = { _, result in
            result?.pointee = 0
            return SQLITE_OK
        }
        methods.pointee.xFileControl = { _, _, _ in SQLITE_NOTFOUND }
        methods.pointee.xSectorSize = { _ in 4096 }
        methods.pointee.xDeviceCharacteristics = { _ in SQLITE_IOCAP_IMMUTABLE }
        return methods
    }()

    private static let registered: Bool = {
        guard let base = sqlite3_vfs_find(nil) else { return false }
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: sqlite3_vfs())
        vfs.pointee.iVersion = 1
        vfs.pointee.szOsFile = Int32(fileSize)
        vfs.pointee.mxPathname = 512
        vfs.pointee.zName = UnsafePointer(strdup(name))
        vfs.pointee.pAppData = UnsafeMutableRawPointer(base)
        vfs.pointee.xOpen = { _, name, file, flags, outFlags in
            guard let file else { return SQLITE_CANTOPEN }
            file.pointee.pMethods = nil
            let slot = UnsafeMutableRawPointer(file) + MemoryLayout<sqlite3_file>.stride
            slot.storeBytes(of: nil, as: UnsafeRawPointer?.self)
            guard flags & SQLITE_OPEN_MAIN_DB != 0, let name,
                let view = LogViewFileSystem.view(named: String(cString: name))
            else { return SQLITE_CANTOPEN }
            slot.storeBytes(of: UnsafeRawPointer(Unmanaged.passRetained(view).toOpaque()), as: UnsafeRawPointer?.self)
            file.pointee.pMethods = UnsafePointer(LogViewFileSystem.methods)
            outFlags?.pointee = SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB
            return SQLITE_OK
        }
        vfs.pointee.xDelete = { _, _, _ in SQLITE_OK }
        vfs.pointee.xAccess = { _, _, _, result in
            result?.pointee = 0
            return SQLITE_OK
        }
        vfs.pointee.xFullPathname = { _, name, count, output in
            guard let name, let output, count > 0 else { return SQLITE_CANTOPEN }
            let length = min(Int(strlen(name)), Int(count) - 1)
            memcpy(output, name, length)
            output[length] = 0
            return SQLITE_OK
        }
        vfs.pointee.xRandomness = { vfs, count, output in
            let base = vfs!.pointee.pAppData.assumingMemoryBound(to: sqlite3_vfs.self)
            return base.pointee.xRandomness(base, count, output)
        }
        vfs.pointee.xSleep = { vfs, microseconds in
            let base = vfs!.pointee.pAppData.assumingMemoryBound(to: sqlite3_vfs.self)
            return base.pointee.xSleep(base, microseconds)
        }
        vfs.pointee.xCurrentTime = { vfs, time in
            let base = vfs!.pointee.pAppData.assumingMemoryBound(to: sqlite3_vfs.self)
            return base.pointee.xCurrentTime(base, time)
        }
        vfs.pointee.xGetLastError = { _, _, _ in 0 }
        return sqlite3_vfs_register(vfs, 0) == SQLITE_OK
    }()
}
