internal import Foundation
internal import MoltCore
internal import MoltModel

/// The readers of a store's embedded model as fuzz targets: the DEFLATE decoder and the
/// compiled-model decoder.
enum ArchiveTargets {
    /// Output limit of the `inflate` target: enough for any example, small enough to be quick.
    static let inflateLimit = 4 << 20

    /// Inflates the bytes: the result, or a DEFLATE error naming the input.
    static func inflate(_ data: Data) -> String? {
        do {
            _ = try Inflate(outputLimit: inflateLimit).decompress(data, name: FuzzTarget.fileName)
            return nil
        } catch let error as MoltError where error.code == .propertyListReadCorrupt {
            return error.message.hasPrefix("\(FuzzTarget.fileName) is not valid DEFLATE data: ")
                ? nil : "the error does not name the data: \(error)"
        } catch {
            return "threw \(error) instead of a DEFLATE error"
        }
    }

    /// Decodes the bytes as a compiled model. A model that decodes must hash, be written as an
    /// Xcode model (or be refused with a MoltError for text XML cannot hold), and read back
    /// with the same hashes; a refusal must be a MoltError located at the input.
    static func modelArchive(_ data: Data) -> String? {
        let location = SourceLocation(file: FuzzTarget.fileName)
        let model: ObjectModel
        do {
            model = try CompiledModelDecoder().decode(data, location: location).model
        } catch {
            return Promises.refusal(error, codes: [.propertyListReadCorrupt, .fileReadCorruptFile])
        }
        do {
            let hashes = try model.entityVersionHashes()
            let text: Data
            do {
                text = try XcodeModelWriter().data(for: model)
            } catch is MoltError {
                return nil  // text XML cannot hold, refused by the writer
            }
            let again = try XcodeModelReader().read(text, file: "written contents")
            return try again.entityVersionHashes() == hashes
                ? nil : "the decoded model, written as an Xcode model, reads back with other hashes"
        } catch {
            return "a decoded model could not be hashed, written and read back: \(error)"
        }
    }

    /// Seeds for `inflate`: raw DEFLATE vectors made with zlib (stored, fixed, dynamic) and the
    /// example models' archives wrapped in stored blocks.
    static func inflateExamples() -> [Data] {
        let vectors = [
            "011a00e5ff4d6f6c742073746f7265733a2073746f72656420626c6f636b2e",
            "4b4c4a4e8421858cd49c9c7c14d239bf2855c125b1241100",
            "4acb2c2a2e51c848cc4953c84f5328c9485548492c49d45148a3b178716a727e5e0a584207000000ffff5348c94c4b4b2d4acd2b5128cf2f4a2956284e4dcecf4b51c848cc49d351a0932400",
            "4b4c1c05a360140c770000",
            "75525b12c2200cbc0a5743cb5866a0284467bcbd76432a09f50768b3d907219725245743f214cbd6d67877af50dbf7ec7249e4c24691dece13d578795270d752c3f099d1bf78f2020560f56d9d7b8559f65f05782322a84e030dd3018b58460738633114a32b48a8dc8d46555532a1c1cd7054e04035182c16a0baedfdd24cdcf6489126953112f7c65bf5d435d53d31abd459f200ef25760c161d9c95cd0ca6909a8b7be427e3cc88fecc5369e7f9fd09a7191e021bca7eafc8ad6cfd5ee5e97d9c79e40847202152a2dd4a2fca46f2063e",
        ]
        return vectors.compactMap(hexData) + modelArchiveExamples().prefix(1).map(storedBlocks)
    }

    /// Seeds for `modelarchive`: the example models as compiled archives.
    static func modelArchiveExamples() -> [Data] {
        guard let (first, second) = FuzzFiles.blogModels else { return [] }
        return [first, second].map { CompiledModelArchiver().data(for: $0) }
    }

    static func hexData(_ text: String) -> Data? {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            guard let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex),
                let byte = UInt8(text[index..<next], radix: 16)
            else { return nil }
            bytes.append(byte)
            index = next
        }
        return Data(bytes)
    }

    /// `data` as raw DEFLATE stored blocks.
    static func storedBlocks(_ data: Data) -> Data {
        var output: [UInt8] = []
        let bytes = [UInt8](data)
        var start = 0
        repeat {
            let length = min(65_535, bytes.count - start)
            output.append(start + length == bytes.count ? 1 : 0)
            output += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            output += bytes[start..<(start + length)]
            start += length
        } while start < bytes.count
        return Data(output)
    }
}
