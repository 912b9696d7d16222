import Foundation
import MoltCore
import MoltTestSupport
import Testing

/// Raw DEFLATE vectors were made once with Python's zlib (`zlib.compressobj(level,
/// zlib.DEFLATED, -15, 9, strategy)`, raw, no header) and are kept here as hex; the damaged
/// ones were written bit by bit, and zlib refuses each of them too.
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

    @Test("truncated and damaged data give exact errors")
    func damagedData() throws {
        let cases: [(String, String)] = [
            ("", "the data ends in the middle of a block (at byte 0 of 0)"),
            ("07", "a block has the reserved type 3 (at byte 0 of 1)"),
            ("ffffffff", "a block has the reserved type 3 (at byte 0 of 4)"),
            ("000000ffff", "the data ends in the middle of a block (at byte 5 of 5)"),
            ("0105000000", "a stored block's length 5 does not match its check value 0 (at byte 5 of 5)"),
            ("010500faff41", "a stored block of 5 bytes goes past the end of the data (at byte 6 of 6)"),
            (
                "68656c6c6f20776f726c64",
                "a stored block's length 27749 does not match its check value 28524 (at byte 5 of 11)"
            ),
            ("030200", "a copy reaches 1 bytes back, but only 0 were written (at byte 1 of 3)"),
            ("4b043e00", "invalid distance symbol 30 (at byte 2 of 4)"),
            ("1b0300", "invalid literal/length symbol 286 (at byte 1 of 3)"),
            (
                "fd0000",
                "a dynamic block declares 288 literal/length and 1 distance codes (at most 286 and 30) (at byte 2 of 3)"
            ),
            (
                "05e09324499224499200",
                "the code-length code is over-subscribed (more codes than bits allow) (at byte 9 of 10)"
            ),
            ("05000224", "a dynamic block repeats a code length before giving one (at byte 3 of 4)"),
            (String(Self.dynamicVector.prefix(100)), "the data ends in the middle of a code (at byte 50 of 50)"),
            (String(Self.dynamicVector.dropLast(2)), "the data ends in the middle of a block (at byte 208 of 209)"),
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
                == "test blob is not valid DEFLATE data: it inflates to more than the limit of 100 bytes (at byte 4 of 11)"
        )
        #expect(try Self.inflate("4b4c1c05a360140c770000", limit: 1000).count == 1000)
        let stored = try #require(
            Self.error("011a00e5ff4d6f6c742073746f7265733a2073746f72656420626c6f636b2e", limit: 10))
        #expect(stored.message.contains("it inflates to more than the limit of 10 bytes"))
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

/// A small deterministic random generator for the tests.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
