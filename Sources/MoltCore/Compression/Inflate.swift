internal import CZlib
public import Foundation

/// Decompresses raw DEFLATE data (RFC 1951: no zlib or gzip header), as Core Data keeps a
/// store's compiled model in `Z_MODELCACHE`.
///
/// zlib does the decoding (`inflate` with a raw 32 KB window). The output is bounded: it is
/// inflated a chunk at a time into a buffer that never grows past ``outputLimit``, and the
/// first byte beyond the limit stops it. Damaged, truncated or hostile data gives a
/// ``MoltError`` with code ``MoltError/Code-swift.struct/propertyListReadCorrupt`` that names
/// what was being inflated, says what is wrong and how many input bytes had been read, never
/// a crash. Bytes after the final block are ignored.
///
/// ```swift
/// let archive = try Inflate().decompress(blob, name: "Store.sqlite's Z_MODELCACHE")
/// ```
public struct Inflate: Sendable {
    /// The default output limit: 256 MB, far above any compiled model.
    public static let defaultOutputLimit = 256 << 20

    /// The most bytes the output may have.
    public var outputLimit: Int

    public init(outputLimit: Int = Inflate.defaultOutputLimit) {
        self.outputLimit = outputLimit
    }

    /// The decompressed bytes of `data`; `name` says what is inflated in error messages.
    public func decompress(_ data: Data, name: String) throws -> Data {
        try data.withUnsafeBytes { input in
            Data(try InflateStream.inflate(input, name: name, limit: max(0, outputLimit)))
        }
    }
}

/// One decompression with zlib: the stream, fed the input and emptied a chunk at a time.
private enum InflateStream {
    /// The most bytes zlib writes in one call.
    static let chunkSize = 64 << 10

    /// zlib's window for raw DEFLATE: 2^15 bytes, negative for no header.
    static let rawWindowBits: Int32 = -15

    static func inflate(_ input: UnsafeRawBufferPointer, name: String, limit: Int) throws -> [UInt8] {
        var stream = z_stream()
        let started = molt_inflate_init2(&stream, rawWindowBits)
        guard started == Z_OK else {
            throw MoltError(.fileReadUnknown, "zlib could not start inflating \(name) (zlib status \(started))")
        }
        defer { inflateEnd(&stream) }

        let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, min(chunkSize, limit)))
        defer { chunk.deallocate() }
        var output: [UInt8] = []
        output.reserveCapacity(min(limit, max(1024, input.count * 4)))
        // Input bytes handed to zlib so far (it takes at most 4 GB per call).
        var given = 0

        func corrupt(_ reason: String) -> MoltError {
            MoltError(
                .propertyListReadCorrupt,
                "\(name) is not valid DEFLATE data: \(reason) (after reading \(stream.total_in) of \(input.count) bytes)",
                recovery: "The compressed data is damaged or was not written by a DEFLATE compressor.")
        }

        while true {
            if stream.avail_in == 0, given < input.count, let base = input.baseAddress {
                let count = min(input.count - given, Int(UInt32.max))
                stream.next_in = UnsafeMutablePointer(mutating: (base + given).assumingMemoryBound(to: Bytef.self))
                stream.avail_in = UInt32(count)
                given += count
            }
            // With the output full, one more byte is asked for: if the stream has it, the
            // output would pass the limit.
            let room = limit - output.count
            let asked = room == 0 ? 1 : min(room, chunk.count)
            stream.next_out = chunk.baseAddress
            stream.avail_out = UInt32(asked)
            let status = CZlib.inflate(&stream, Z_NO_FLUSH)
            stream.next_out = nil
            let produced = asked - Int(stream.avail_out)
            guard produced <= room else {
                throw corrupt("it inflates to more than the limit of \(limit) bytes")
            }
            if output.count + produced > output.capacity {
                output.reserveCapacity(min(limit, max(output.count + produced, output.capacity * 2)))
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[0..<produced]))

            switch status {
            case Z_STREAM_END:
                return output
            case Z_OK:
                continue
            case Z_BUF_ERROR where stream.avail_in == 0 && given == input.count:
                // No progress is possible without more input.
                throw corrupt("the data ends in the middle of a block")
            case Z_DATA_ERROR:
                throw corrupt(stream.msg.map { String(cString: $0) } ?? "zlib found the data invalid")
            case Z_MEM_ERROR:
                throw MoltError(.fileReadUnknown, "zlib ran out of memory inflating \(name)")
            default:
                throw corrupt("zlib stopped with status \(status)")
            }
        }
    }
}
