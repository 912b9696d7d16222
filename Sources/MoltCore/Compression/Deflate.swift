internal import CZlib
public import Foundation

/// Compresses data as raw DEFLATE (RFC 1951: no zlib or gzip header), the form in which Core
/// Data keeps a store's compiled model in `Z_MODELCACHE`; ``Inflate`` reads it back.
///
/// ```swift
/// let blob = try Deflate().compress(CompiledModelArchiver().data(for: model))
/// ```
public struct Deflate: Sendable {
    public init() {}

    /// `data`, compressed at zlib's default level with a raw 32 KB window.
    public func compress(_ data: Data) throws -> Data {
        var stream = z_stream()
        let started = molt_deflate_init2(&stream, Z_DEFAULT_COMPRESSION, -15)
        guard started == Z_OK else {
            throw MoltError(.fileWriteUnknown, "zlib could not start compressing (zlib status \(started))")
        }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(data.count)))
        var output = [UInt8](repeating: 0, count: max(bound, 16))
        let status = data.withUnsafeBytes { input -> Int32 in
            output.withUnsafeMutableBufferPointer { buffer in
                stream.next_in = UnsafeMutablePointer(
                    mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(input.count)
                stream.next_out = buffer.baseAddress
                stream.avail_out = uInt(buffer.count)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else {
            throw MoltError(.fileWriteUnknown, "zlib could not compress \(data.count) bytes (zlib status \(status))")
        }
        return Data(output.prefix(Int(stream.total_out)))
    }
}
