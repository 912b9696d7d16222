import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A database's write-ahead log (`-wal`) read as SQLite reads it when it recovers one, without
/// SQLite and without writing anything: which frames are valid and committed, and where each
/// page's last committed copy is.
///
/// SQLite's file format (section 4, "The Write-Ahead Log"): a 32-byte header (magic number,
/// format version 3007000, page size, checkpoint sequence, two salts, a checksum of the first
/// 24 bytes), then frames of a 24-byte header (page number; the database size in pages after
/// the commit for the last frame of a transaction, 0 otherwise; the header's two salts; a
/// checksum) and one page. A frame is valid when its salts are the header's and its checksum,
/// which runs on from the previous frame's over the frame header's first 8 bytes and the page,
/// is right; the log ends at the first frame that is not. Only frames up to the last valid
/// commit frame are committed: the rest are a transaction that never finished, which SQLite
/// ignores.
public struct WriteAheadLog: Sendable {
    /// The log file's path.
    public let path: String
    /// The log's page size, from its header.
    public let pageSize: Int
    /// The salts of the header: every valid frame carries them.
    public let salts: (UInt32, UInt32)
    /// The checkpoint sequence number of the header.
    public let checkpointSequence: UInt32
    /// Committed frames, in order.
    public let committedFrames: Int
    /// The database's size in pages after the last committed transaction (0 when none).
    public let databasePages: UInt32
    /// For each page the committed frames hold, the byte offset of its last copy's content.
    public let pageOffsets: [UInt32: Int64]
    /// The log file's size in bytes.
    public let fileSize: Int64

    static let headerSize = 32
    static let frameHeaderSize = 24

    /// Reads the log at `path`; nil when there is no log, or its header is not a valid one
    /// (SQLite then treats the log as empty, and writes over it).
    public static func read(_ path: String) throws -> WriteAheadLog? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let size = Int64(info.st_size)
        guard size >= Int64(headerSize) else { return nil }
        var header = [UInt8](repeating: 0, count: headerSize)
        guard try readFully(descriptor, into: &header, at: 0) else { return nil }
        let magic = bigEndian(header, 0)
        guard magic & 0xFFFF_FFFE == 0x377F_0682, bigEndian(header, 4) == 3_007_000 else { return nil }
        let nativeOrder = magic & 1 == 1
        let pageSize = Int(bigEndian(header, 8))
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else { return nil }
        var checksum = Checksum(bigEndianWords: nativeOrder)
        checksum.add(header, range: 0..<24)
        guard checksum.first == bigEndian(header, 24), checksum.second == bigEndian(header, 28) else { return nil }
        let salts = (bigEndian(header, 16), bigEndian(header, 20))

        var frame = [UInt8](repeating: 0, count: frameHeaderSize + pageSize)
        var offset = Int64(headerSize)
        var frames = 0
        var committed = 0
        var databasePages: UInt32 = 0
        var pending: [UInt32: Int64] = [:]
        var pages: [UInt32: Int64] = [:]
        while offset + Int64(frame.count) <= size {
            guard try readFully(descriptor, into: &frame, at: offset) else { break }
            let page = bigEndian(frame, 0)
            let commitSize = bigEndian(frame, 4)
            guard page > 0, bigEndian(frame, 8) == salts.0, bigEndian(frame, 12) == salts.1 else { break }
            var next = checksum
            next.add(frame, range: 0..<8)
            next.add(frame, range: frameHeaderSize..<frame.count)
            guard next.first == bigEndian(frame, 16), next.second == bigEndian(frame, 20) else { break }
            checksum = next
            frames += 1
            pending[page] = offset + Int64(frameHeaderSize)
            if commitSize > 0 {
                pages.merge(pending) { _, new in new }
                pending.removeAll(keepingCapacity: true)
                committed = frames
                databasePages = commitSize
            }
            offset += Int64(frame.count)
        }
        // Pages beyond the last commit's size are cut off by that commit.
        if databasePages > 0 { pages = pages.filter { $0.key <= databasePages } }
        return WriteAheadLog(
            path: path, pageSize: pageSize, salts: salts, checkpointSequence: bigEndian(header, 12),
            committedFrames: committed,
            databasePages: databasePages, pageOffsets: pages, fileSize: size)
    }

    private static func readFully(_ descriptor: Int32, into buffer: inout [UInt8], at offset: Int64) throws -> Bool {
        var done = 0
        let total = buffer.count
        while done < total {
            let count = buffer.withUnsafeMutableBytes { pointer in
                pread(descriptor, pointer.baseAddress! + done, total - done, off_t(offset) + off_t(done))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if count == 0 { return false }
            done += count
        }
        return true
    }

    static func bigEndian(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    /// SQLite's WAL checksum: over 32-bit words taken two at a time, in the byte order the
    /// magic number's last bit gives (1: big-endian).
    struct Checksum {
        let bigEndianWords: Bool
        var first: UInt32 = 0
        var second: UInt32 = 0

        init(bigEndianWords: Bool) {
            self.bigEndianWords = bigEndianWords
        }

        mutating func add(_ bytes: [UInt8], range: Range<Int>) {
            var index = range.lowerBound
            while index + 8 <= range.upperBound {
                let a = word(bytes, index)
                let b = word(bytes, index + 4)
                first = first &+ a &+ second
                second = second &+ b &+ first
                index += 8
            }
        }

        private func word(_ bytes: [UInt8], _ at: Int) -> UInt32 {
            bigEndianWords
                ? WriteAheadLog.bigEndian(bytes, at)
                : UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
                    | UInt32(bytes[at + 3]) << 24
        }
    }
}
