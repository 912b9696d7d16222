public import Foundation
internal import MoltCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A store's `_EXTERNAL_DATA` folder (inside `.<Store>_SUPPORT`): where the values of
/// attributes with external storage live, one file per value (see ``ExternalBinaryColumn``).
///
/// Reading maps a file rather than loading it, so a batch of objects with large photos costs
/// address space, not memory, and a value carried unchanged into another store is linked,
/// never read (``ExternalDataOrigins``). Writing creates the folder when it is first needed;
/// the files written are made durable by ``sync()`` and can be taken back by
/// ``removeWritten(since:)`` when the transaction that refers to them fails.
public final class ExternalDataFolder: @unchecked Sendable {
    /// Values at least this long go to a file of their own when Molt decides (a value read
    /// from a file stays in one, a value read from the row stays in the row when it is short).
    /// Core Data's own threshold is not documented (128 KB and 1 MB are reported); this is
    /// Molt's choice.
    public static let fileThreshold = 128 * 1024

    /// `.<Store>_SUPPORT`.
    public let supportFolder: URL
    /// `.<Store>_SUPPORT/_EXTERNAL_DATA`.
    public let url: URL

    private let lock = NSLock()
    /// Names this folder gained, in order, and whether each needs syncing (a new file; a link
    /// to a durable file needs only the folder synced).
    private var written: [(name: String, needsSync: Bool)] = []
    /// How many of ``written`` are durable.
    private var synced = 0
    /// Files whose rows now refer to other values: removed once that change is committed.
    private var retired: [String] = []
    /// Names of this folder's own files that rows have been given as they are (see
    /// ``sharesFilesWithSource``).
    private var reused: Set<String> = []

    /// Called with each new file's name before the file is created: a migration writes it to
    /// its list of files to remove if it does not finish. Files are then only ever created
    /// under new names (new UUIDs), so the list never names a file that was already there.
    public var willCreate: ((String) throws -> Void)?

    /// Whether the store being written shares this folder with the store its values are read
    /// from (a migration's new store, which replaces the old one in one rename): a value read
    /// unchanged from one of the folder's files is referred to by that file's name, with no
    /// link or copy, the first time; later references get links of their own.
    public var sharesFilesWithSource = false

    public init(supportFolder: URL) {
        self.supportFolder = supportFolder
        self.url = supportFolder.appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
    }

    /// The folder of the store at `store` (`.<Name>_SUPPORT/_EXTERNAL_DATA` beside it).
    public convenience init(store: URL) {
        self.init(supportFolder: CompanionFiles.supportFolder(of: store))
    }

    /// Whether the folder exists.
    public var exists: Bool {
        var info = stat()
        return stat(url.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The path of the file `name`.
    public func path(of name: String) -> String { url.path + "/" + name }

    // MARK: Reading

    /// The value in the file `name`, mapped read-only. Only regular files directly in the
    /// folder are read (no symbolic links, devices or pipes).
    public func read(_ name: String) throws -> Data {
        guard ExternalBinaryColumn.isPlainFileName(name) else {
            throw MoltError(.persistentStoreInvalidType, "\"\(name)\" is not a plain external-data file name")
        }
        let path = path(of: name)
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT {
                throw MoltError(
                    .fileReadNoSuchFile,
                    "the external-data file \(name) is missing from \(url.path)",
                    recovery: "Restore the store's .…_SUPPORT folder from the copy it was taken with.")
            }
            throw MoltError(
                code == EACCES ? .fileReadNoPermission : .fileReadUnknown,
                "cannot open the external-data file \(name): \(String(cString: strerror(code)))",
                location: SourceLocation(file: path))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw MoltError(
                .fileReadCorruptFile, "the external-data entry \(name) is not a regular file",
                location: SourceLocation(file: path))
        }
        let size = Int(info.st_size)
        guard size > 0 else { return Data() }
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else {
            throw MoltError(
                .fileReadUnknown, "cannot map the external-data file \(name): \(String(cString: strerror(errno)))",
                location: SourceLocation(file: path))
        }
        let value = Data(
            bytesNoCopy: address, count: size,
            deallocator: .custom { pointer, count in
                munmap(pointer, count)
            })
        ExternalDataOrigins.shared.register(value, folder: url.path, name: name)
        return value
    }

    // MARK: Writing

    /// What to store in the row for `value`: a reference to its file when it came unchanged
    /// from one (linked here, under its own name when free) or is at least ``fileThreshold``
    /// long (written to a new file), else the value itself.
    public func column(for value: Data) throws -> ExternalBinaryColumn {
        if let origin = ExternalDataOrigins.shared.origin(of: value) {
            // A link is impossible here (another file system, no hard links, the file gone
            // since it was read): the value's own bytes are written instead.
            if let name = try? adopt(origin) { return .file(name) }
            return .file(try write(value))
        }
        if value.count >= Self.fileThreshold {
            return .file(try write(value))
        }
        return .inline(value)
    }

    /// Writes `value` to a new file and returns its name (a new UUID, as Core Data names them).
    public func write(_ value: Data) throws -> String {
        try createFolder()
        let name = UUID().uuidString
        let path = path(of: name)
        try willCreate?(name)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("create the external-data file", path) }
        var failed: MoltError?
        value.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let done = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if done < 0 {
                    if errno == EINTR { continue }
                    failed = failure("write the external-data file", path)
                    return
                }
                offset += done
            }
        }
        close(descriptor)
        if let failed {
            unlink(path)
            throw failed
        }
        record(name, needsSync: true)
        return name
    }

    /// Makes the file `origin` names a file of this folder and returns its name here: a hard
    /// link under the same name, or under a new one when
    /// that name is taken, as it is when the file is already this folder's. Two rows never
    /// share a name, so removing one row's file never takes another's value.
    public func adopt(_ origin: ExternalDataOrigins.Origin) throws -> String {
        let source = origin.folder + "/" + origin.name
        if sharesFilesWithSource && origin.folder == url.path {
            lock.lock()
            let first = reused.insert(origin.name).inserted
            lock.unlock()
            if first { return origin.name }
        }
        try createFolder()
        let candidates = willCreate == nil ? [origin.name, UUID().uuidString] : [UUID().uuidString]
        for name in candidates {
            try willCreate?(name)
            if link(source, path(of: name)) == 0 {
                record(name, needsSync: false)
                return name
            }
            if errno == EEXIST { continue }
            break
        }
        throw failure("link the external-data file \(origin.name)", path(of: origin.name))
    }

    /// How many names the folder has gained so far (a mark for ``removeWritten(since:)``).
    public var writtenCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return written.count
    }

    /// Removes the files written or linked after `mark`: the work of a transaction that failed.
    public func removeWritten(since mark: Int) {
        lock.lock()
        let removed = written.count > mark ? Array(written[mark...]) : []
        if written.count > mark { written.removeSubrange(mark...) }
        synced = min(synced, written.count)
        lock.unlock()
        for entry in removed { unlink(path(of: entry.name)) }
    }

    /// Makes every file written so far, and the folder's entries, durable.
    public func sync() throws {
        lock.lock()
        let pending = Array(written[synced...])
        let target = written.count
        lock.unlock()
        guard !pending.isEmpty else { return }
        for entry in pending where entry.needsSync { try FileSync.sync(path: path(of: entry.name)) }
        try FileSync.sync(path: url.path)
        try FileSync.sync(path: supportFolder.path)
        try FileSync.sync(path: supportFolder.deletingLastPathComponent().path)
        lock.lock()
        synced = max(synced, min(target, written.count))
        lock.unlock()
    }

    /// Notes that no row refers to the file `name` once the current transaction commits.
    public func retire(_ name: String) {
        lock.lock()
        retired.append(name)
        lock.unlock()
    }

    /// Removes the files retired so far: call after the transaction that retired them
    /// committed. With ``sharesFilesWithSource``, only files this folder wrote or linked are
    /// removed: the others are the source store's, which still refers to them.
    public func removeRetired() {
        lock.lock()
        var names = retired
        retired.removeAll()
        if sharesFilesWithSource {
            let own = Set(written.map(\.name))
            names = names.filter { own.contains($0) }
        }
        lock.unlock()
        for name in names where ExternalBinaryColumn.isPlainFileName(name) { unlink(path(of: name)) }
    }

    /// Forgets the files retired so far: the transaction that retired them failed, so the
    /// rows still refer to them.
    public func keepRetired() {
        lock.lock()
        retired.removeAll()
        lock.unlock()
    }

    private func record(_ name: String, needsSync: Bool) {
        lock.lock()
        written.append((name, needsSync))
        lock.unlock()
    }

    private func createFolder() throws {
        guard !exists else { return }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw MoltError(
                .fileWriteUnknown, "cannot create the external-data folder: \(error.localizedDescription)",
                location: SourceLocation(file: url.path))
        }
    }

    private func failure(_ what: String, _ path: String) -> MoltError {
        let code = errno
        return MoltError(
            code == ENOSPC ? .sqlite : .fileWriteUnknown, "cannot \(what): \(String(cString: strerror(code)))",
            location: SourceLocation(file: path))
    }
}
