public import Foundation
public import Molt

/// Making stores with an embedded model (`Z_MODELCACHE`) in tests, without Core Data: the
/// compiled model from ``CompiledModelArchiver``, deflated as stored blocks.
public enum ModelCacheSupport {
    /// `data` as raw DEFLATE made of stored (uncompressed) blocks of at most 65,535 bytes.
    public static func storedDeflate(_ data: Data) -> Data {
        var output: [UInt8] = []
        let bytes = [UInt8](data)
        var start = 0
        repeat {
            let length = min(65_535, bytes.count - start)
            let isFinal = start + length == bytes.count
            output.append(isFinal ? 1 : 0)
            output += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            output += bytes[start..<(start + length)]
            start += length
        } while start < bytes.count
        return Data(output)
    }

    /// The model cache Core Data would keep for `model` (as Molt writes the compiled form).
    public static func blob(for model: ObjectModel) -> Data {
        storedDeflate(CompiledModelArchiver().data(for: model))
    }

    /// Replaces the rows of the store's `Z_MODELCACHE` with one row per blob.
    public static func setModelCache(_ blobs: [Data], in url: URL) throws {
        let store = try SQLiteStore(at: url, readOnly: false)
        defer { store.connection.close() }
        try store.connection.run("DELETE FROM Z_MODELCACHE")
        for blob in blobs {
            try store.connection.run("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.blob(blob)])
        }
    }
}
