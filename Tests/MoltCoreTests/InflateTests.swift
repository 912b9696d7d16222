import Foundation
import MoltCore
import MoltTestSupport
import Testing

/// Raw DEFLATE vectors were made once with Python's zlib (`zlib.compressobj(level,
/// zlib.DEFLATED, -15, 9, strategy)`, raw, no header) and are kept here as hex; the damaged
/// ones were written bit by bit. `Inflate` runs on zlib, so these check the bounds, the
/// errors and the raw window around it rather than the decoding itself.
@Suite("Inflate (raw DEFLATE)")
struct InflateTests {
    static func hex(_ text: String) -> Data {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return Data(bytes)
    }

    static func inflate(_ hexText: String, limit: Int = Inflate.defaultOutputLimit) throws -> Data {
        try Inflate(outputLimit: limit).decompress(hex(hexText), name: "test blob")
    }

    static func error(_ hexText: String, limit: Int = Inflate.defaultOutputLimit) -> MoltError? {
        do {
            _ = try inflate(hexText, limit: limit)
            return nil
        } catch {
            return error as? MoltError
        }
    }

    /// The words the dynamic-block vector compresses: 120 words drawn with Python's
    /// `random.seed(7)` from a list of twelve.
    static let dynamicText =
        "model relationship version molt entity attribute core attribute model data entity core hash entity attribute version version attribute hash attribute core version entity data attribute hash molt molt data entity data data version entity hash entity core relationship store version relationship core attribute data store core molt relationship attribute data data molt hash model attribute core sqlite attribute data entity data hash migrate molt core version model migrate data migrate model store hash relationship sqlite hash attribute data store core migrate model sqlite migrate store data attribute attribute core version relationship model relationship migrate version entity molt attribute core data model model sqlite model data migrate data migrate attribute attribute store migrate sqlite molt attribute entity sqlite sqlite store molt"

    static let dynamicVector =
        "75525b12c2200cbc0a5743cb5866a0284467bcbd76432a09f50768b3d907219725245743f214cbd6d67877af50dbf7ec7249e4c24691dece13d578795270d752c3f099d1bf78f2020560f56d9d7b8559f65f05782322a84e030dd3018b58460738633114a32b48a8dc8d46555532a1c1cd7054e04035182c16a0baedfdd24cdcf6489126953112f7c65bf5d435d53d31abd459f200ef25760c161d9c95cd0ca6909a8b7be427e3cc88fecc5369e7f9fd09a7191e021bca7eafc8ad6cfd5ee5e97d9c79e40847202152a2dd4a2fca46f2063e"

    @Test("a stored block (level 0)")
    func storedBlock() throws {
        let output = try Self.inflate("011a00e5ff4d6f6c742073746f7265733a2073746f72656420626c6f636b2e")
        #expect(String(decoding: output, as: UTF8.self) == "Molt stores: stored block.")
    }

    @Test("a fixed-Huffman block (Z_FIXED) with back references")
    func fixedBlock() throws {
        let output = try Self.inflate("4b4c4a4e8421858cd49c9c7c14d239bf2855c125b1241100")
        #expect(String(decoding: output, as: UTF8.self) == "abcabcabcabc hello hello hello Core Data")
    }

    @Test("a dynamic-Huffman block")
    func dynamicBlock() throws {
        let output = try Self.inflate(Self.dynamicVector)
        #expect(String(decoding: output, as: UTF8.self) == Self.dynamicText)
    }

    @Test("several blocks: a full flush puts an empty stored block between two fixed blocks")
    func severalBlocks() throws {
        let output = try Self.inflate(
            "4acb2c2a2e51c848cc4953c84f5328c9485548492c49d45148a3b178716a727e5e0a584207000000ffff5348c94c4b4b2d4acd2b5128cf2f4a2956284e4dcecf4b51c848cc49d351a0932400"
        )
        let expected =
            String(repeating: "first half of the data, ", count: 5)
            + String(repeating: "second half, different words ", count: 5)
        #expect(String(decoding: output, as: UTF8.self) == expected)
    }

    @Test("empty data, overlapping copies and a copy of length 258")
    func edgeCases() throws {
        #expect(try Self.inflate("0300").isEmpty)
        #expect(try Self.inflate("4b4c1c05a360140c770000") == Data(repeating: UInt8(ascii: "a"), count: 1000))
        #expect(String(decoding: try Self.inflate("4b4c024100"), as: UTF8.self) == "ababab")
    }

    @Test("bytes after the final block are ignored")
    func trailingBytes() throws {
        #expect(String(decoding: try Self.inflate("cb48cdc9c90700ffff"), as: UTF8.self) == "hello")
        #expect(try Self.inflate("030000000000").isEmpty)
    }

    @Test("truncated and damaged data give zlib's reason and how much was read")
    func damagedData() throws {
        let cases: [(String, String)] = [
            ("", "the data ends in the middle of a block (after reading 0 of 0 bytes)"),
            ("07", "invalid block type (after reading 1 of 1 bytes)"),
            ("ffffffff", "invalid block type (after reading 1 of 4 bytes)"),
            ("000000ffff", "the data ends in the middle of a block (after reading 5 of 5 bytes)"),
            ("0105000000", "invalid stored block lengths (after reading 5 of 5 bytes)"),
            ("010500faff41", "the data ends in the middle of a block (after reading 6 of 6 bytes)"),
            ("68656c6c6f20776f726c64", "invalid stored block lengths (after reading 5 of 11 bytes)"),
            // A zlib stream (header 78 9c) is not raw DEFLATE: its header reads as a stored block.
            ("789ccb48cdc9c90700062c0215", "invalid stored block lengths (after reading 5 of 13 bytes)"),
            ("030200", "invalid distance too far back (after reading 2 of 3 bytes)"),
            ("4b043e00", "invalid distance code (after reading 3 of 4 bytes)"),
            ("1b0300", "invalid literal/length code (after reading 2 of 3 bytes)"),
            ("fd0000", "too many length or distance symbols (after reading 3 of 3 bytes)"),
            ("05e09324499224499200", "invalid code lengths set (after reading 10 of 10 bytes)"),
            ("05000224", "invalid bit length repeat (after reading 4 of 4 bytes)"),
            (
                String(Self.dynamicVector.prefix(100)),
                "the data ends in the middle of a block (after reading 50 of 50 bytes)"
            ),
            (
                String(Self.dynamicVector.dropLast(2)),
                "the data ends in the middle of a block (after reading 209 of 209 bytes)"
            ),
        ]
        for (input, message) in cases {
            let error = try #require(Self.error(input), "\(input) must be refused")
            #expect(error.code == .propertyListReadCorrupt)
            #expect(error.message == "test blob is not valid DEFLATE data: \(message)", "\(input)")
        }
    }

    @Test("output beyond the limit is refused")
    func outputLimit() throws {
        let error = try #require(Self.error("4b4c1c05a360140c770000", limit: 100))
        #expect(
            error.message
                == "test blob is not valid DEFLATE data: it inflates to more than the limit of 100 bytes (after reading 4 of 11 bytes)"
        )
        #expect(try Self.inflate("4b4c1c05a360140c770000", limit: 1000).count == 1000)
        let stored = try #require(
            Self.error("011a00e5ff4d6f6c742073746f7265733a2073746f72656420626c6f636b2e", limit: 10))
        #expect(stored.message.contains("it inflates to more than the limit of 10 bytes"))
        #expect(try Self.inflate("0300", limit: 0).isEmpty)
        let none = try #require(Self.error("cb48cdc9c90700", limit: 0))
        #expect(none.message.contains("it inflates to more than the limit of 0 bytes"))
    }

    @Test("output of several chunks, up to the limit exactly and one byte past it")
    func severalChunks() throws {
        // 200,000 zero bytes, compressed to 211.
        let zeros = "edc13101000000c2a0f54f6d067fa0" + String(repeating: "00", count: 193) + "80d700"
        #expect(try Self.inflate(zeros) == Data(count: 200_000))
        #expect(try Self.inflate(zeros, limit: 200_000).count == 200_000)
        let error = try #require(Self.error(zeros, limit: 199_999))
        #expect(error.message.contains("it inflates to more than the limit of 199999 bytes"))
    }

    @Test("random bytes never crash: each input inflates or gives a DEFLATE error naming the blob")
    func randomBytes() throws {
        var generator = SplitMix(seed: 2026)
        for length in 0..<600 {
            let bytes = (0..<(length % 64 + 1)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            do {
                _ = try Inflate(outputLimit: 1 << 16).decompress(Data(bytes), name: "test blob")
            } catch let error as MoltError {
                #expect(error.code == .propertyListReadCorrupt)
                #expect(error.message.hasPrefix("test blob is not valid DEFLATE data: "))
            }
        }
    }

    @Test(
        "the real store's Z_MODELCACHE inflates to its 2,598-byte keyed archive",
        .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
    func realModelCache() throws {
        let blob = try RealModelCache.blob()
        #expect(blob.count == 1701)
        let archive = try Inflate().decompress(blob, name: "TestModel.sqlite's Z_MODELCACHE")
        #expect(archive.count == 2598)
        #expect(archive.prefix(8) == Data("bplist00".utf8))
        let root = try KeyedArchive(data: archive, name: "the model cache").root()
        #expect(root.className == "NSManagedObjectModel")
    }
}
