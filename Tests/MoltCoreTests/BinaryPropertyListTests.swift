import Foundation
import MoltCore
import Testing

@Suite("Binary property lists")
struct BinaryPropertyListTests {
    /// Written by Python's plistlib (an independent writer) for
    /// {s: "hello", u: "héllo ✓", i: 42, big: 2^40, neg: -7, r: 1.5, t: true, f: false,
    ///  data: <000102>, date: 2001-01-02T00:00:00Z, a: [1, "two", [3]], d: {k: "v"}}.
    static let pythonWritten = """
        62706c6973743030dc0102030405060708090a0b0c0d1213161718191a1b1c1d1e51615362696751645464617461546461746551665169\
        536e65675172517351745175a30e0f1010015374776fa1111003130000010000000000d11415516b5176430001023340f5180000000000\
        08102a13fffffffffffffff9233ff80000000000005568656c6c6f0967006800e9006c006c006f0020271308212327292e3335373b3d3f\
        414347494d4f515a5d5f61656e6f717a83898a0000000000000101000000000000001f00000000000000000000000000000099
        """

    static let expected: PropertyList = .dictionary([
        "s": .string("hello"), "u": .string("héllo ✓"), "i": .integer(42), "big": .integer(1 << 40),
        "neg": .integer(-7), "r": .real(1.5), "t": .bool(true), "f": .bool(false), "data": .data(Data([0, 1, 2])),
        "date": .date(Date(timeIntervalSinceReferenceDate: 86_400)),
        "a": .array([.integer(1), .string("two"), .array([.integer(3)])]), "d": .dictionary(["k": .string("v")]),
    ])

    @Test("reads a property list written by another implementation")
    func readsForeignPlist() throws {
        let data = try #require(Data(hexString: Self.pythonWritten))
        #expect(try BinaryPropertyListReader().read(data) == Self.expected)
    }

    @Test("what the writer writes reads back equal, for every kind of value")
    func roundTrip() throws {
        let value: PropertyList = .array([
            Self.expected, .uid(7), .uid(70_000), .integer(Int64.min), .integer(Int64.max), .real(-0.0),
            .string(String(repeating: "long ", count: 40)), .data(Data(repeating: 9, count: 300)), .array([]),
            .dictionary([:]),
        ])
        let written = BinaryPropertyListWriter().write(value)
        #expect(BinaryPropertyListReader.isBinaryPropertyList(written))
        #expect(try BinaryPropertyListReader().read(written) == value)
    }

    @Test("the writer is repeatable: equal values give equal bytes")
    func repeatable() {
        let a = BinaryPropertyListWriter().write(Self.expected)
        let b = BinaryPropertyListWriter().write(Self.expected)
        #expect(a == b)
    }

    @Test("the writer stores equal strings once")
    func uniquesStrings() {
        let repeated: PropertyList = .array(Array(repeating: .string("same text"), count: 50))
        let written = BinaryPropertyListWriter().write(repeated)
        #expect(written.count < 50 * "same text".utf8.count)
    }

    @Test("many objects need wider references and offsets")
    func manyObjects() throws {
        let value: PropertyList = .array((0..<70_000).map { .integer(Int64($0)) })
        #expect(try BinaryPropertyListReader().read(BinaryPropertyListWriter().write(value)) == value)
    }

    @Test(
        "damaged or hostile data is refused with a clear error",
        arguments: [
            ("empty", Data()),
            ("not a plist", Data("hello world, this is not a property list at all....".utf8)),
            ("header only", Data("bplist00".utf8) + Data(repeating: 0, count: 32)),
        ])
    func refusesGarbage(name: String, data: Data) {
        #expect(throws: MoltError.self) { try BinaryPropertyListReader().read(data) }
    }

    @Test("every truncation of a valid plist is refused, never a crash")
    func truncations() throws {
        let data = BinaryPropertyListWriter().write(Self.expected)
        for length in 0..<data.count {
            #expect(throws: MoltError.self) { try BinaryPropertyListReader().read(data.prefix(length)) }
        }
    }

    @Test("a single-byte corruption is refused with a MoltError, or reads as a value that writes back the same")
    func corruptions() throws {
        let data = [UInt8](BinaryPropertyListWriter().write(Self.expected))
        var refused = 0
        for index in 8..<data.count {
            for value: UInt8 in [0x00, 0xFF, 0x5F, 0xAF, 0xDF] {
                var copy = data
                copy[index] = value
                do {
                    // Compared as bytes: a corrupted real may be NaN, which equals nothing.
                    let written = BinaryPropertyListWriter().write(try BinaryPropertyListReader().read(Data(copy)))
                    let again = BinaryPropertyListWriter().write(try BinaryPropertyListReader().read(written))
                    #expect(again == written, "byte \(index) = \(value)")
                } catch is MoltError {
                    refused += 1
                }
            }
        }
        #expect(refused > 0, "some corruptions break the structure")
    }

    @Test("an array that contains itself is refused")
    func cycle() throws {
        // Object 0: an array of one reference, to object 0.
        var bytes = Array("bplist00".utf8)
        bytes += [0xA1, 0x00]  // array, 1 element, ref 0
        let tableStart = bytes.count
        bytes += [0x08]  // offset of object 0
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += withUnsafeBytes(of: UInt64(1).bigEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt64(0).bigEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt64(tableStart).bigEndian, Array.init)
        let error = #expect(throws: MoltError.self) { try BinaryPropertyListReader().read(Data(bytes)) }
        #expect(error?.message.contains("contains itself") == true)
    }

    @Test("shared objects are decoded once: a doubling chain 60 deep does not explode")
    func sharedObjects() throws {
        // Object i is an array holding object i+1 twice; expanding naively would take 2^60 steps.
        let depth = 60
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for index in 0..<depth {
            offsets.append(bytes.count)
            bytes += [0xA2, UInt8(index + 1), UInt8(index + 1)]
        }
        offsets.append(bytes.count)
        bytes += [0x09]  // true
        let tableStart = bytes.count
        bytes += offsets.map { UInt8($0) }
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += withUnsafeBytes(of: UInt64(depth + 1).bigEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt64(0).bigEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt64(tableStart).bigEndian, Array.init)
        let value = try BinaryPropertyListReader().read(Data(bytes))
        var current = value
        for _ in 0..<depth {
            guard case .array(let items) = current, items.count == 2 else {
                Issue.record("expected a pair")
                return
            }
            current = items[0]
        }
        #expect(current == .bool(true))
    }
}
