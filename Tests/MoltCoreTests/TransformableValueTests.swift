import Foundation
import MoltCore
import MoltTestSupport
import Testing

@Suite("Transformable values: the keyed-archive codec")
struct TransformableValueTests {
    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    /// One value of every case, nested.
    static let everything: TransformableValue = [
        "text": "héllo, wörld",
        "integer": 42,
        "negative": .integer(-7),
        "large": .integer(Int64.max),
        "double": 1.5,
        "bool": true,
        "decimal": .decimal(Decimal(string: "-1234.5678")!),
        "date": .date(Date(timeIntervalSinceReferenceDate: 700_000_000.25)),
        "data": .data(Data([0, 1, 2, 255])),
        "url": .url("https://example.com/a?b=c"),
        "uuid": .uuid(uuid),
        "null": .null,
        "array": ["a", 1, ["nested", .null]],
        "set": .set(["x", "y", .integer(3)]),
        "dictionary": [1: "one", .bool(false): "no", ["a", "key"]: .set([])],
        "empty": [],
    ]

    func archive(_ value: TransformableValue, mutable: Bool = false) throws -> PropertyList {
        try BinaryPropertyListReader().read(TransformableValueEncoder(usesMutableClasses: mutable).encode(value))
    }

    // MARK: The shape NSKeyedArchiver writes

    @Test("an array: $null first, the array, its contents as their own entries, then its class")
    func arrayShape() throws {
        let plist = try archive(["a", 1, "a", true, 2.5])
        #expect(
            plist
                == .dictionary([
                    "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
                    "$top": .dictionary(["root": .uid(1)]),
                    "$objects": .array([
                        .string("$null"),
                        .dictionary([
                            "$class": .uid(6), "NS.objects": .array([.uid(2), .uid(3), .uid(2), .uid(4), .uid(5)]),
                        ]),
                        .string("a"), .integer(1), .bool(true), .real(2.5),
                        .dictionary([
                            "$classname": .string("NSArray"),
                            "$classes": .array([.string("NSArray"), .string("NSObject")]),
                        ]),
                    ]),
                ]))
    }

    @Test("a dictionary: every key, then every value; keys in a fixed order")
    func dictionaryShape() throws {
        let plist = try archive(["b": 2, "a": "x"])
        #expect(
            plist["$objects"]
                == .array([
                    .string("$null"),
                    .dictionary([
                        "$class": .uid(6), "NS.keys": .array([.uid(2), .uid(3)]),
                        "NS.objects": .array([.uid(4), .uid(5)]),
                    ]),
                    .string("a"), .string("b"), .string("x"), .integer(2),
                    .dictionary([
                        "$classname": .string("NSDictionary"),
                        "$classes": .array([.string("NSDictionary"), .string("NSObject")]),
                    ]),
                ]))
    }

    @Test("mutable classes: NSMutableArray's chain; strings inside stay inline NSStrings")
    func mutableShape() throws {
        let plist = try archive([.string("s"), .data(Data([9]))], mutable: true)
        #expect(
            plist["$objects"]
                == .array([
                    .string("$null"),
                    .dictionary(["$class": .uid(4), "NS.objects": .array([.uid(2), .uid(3)])]),
                    .string("s"), .data(Data([9])),
                    .dictionary([
                        "$classname": .string("NSMutableArray"),
                        "$classes": .array([.string("NSMutableArray"), .string("NSArray"), .string("NSObject")]),
                    ]),
                ]))
    }

    @Test("mutable classes: a root NSMutableString has NS.string, a root NSMutableData NS.data")
    func mutableRootShape() throws {
        #expect(
            try archive("s", mutable: true)["$objects"]
                == .array([
                    .string("$null"),
                    .dictionary(["$class": .uid(2), "NS.string": .string("s")]),
                    .dictionary([
                        "$classname": .string("NSMutableString"),
                        "$classes": .array([.string("NSMutableString"), .string("NSString"), .string("NSObject")]),
                    ]),
                ]))
        #expect(
            try archive(.data(Data([9])), mutable: true)["$objects"]
                == .array([
                    .string("$null"),
                    .dictionary(["$class": .uid(2), "NS.data": .data(Data([9]))]),
                    .dictionary([
                        "$classname": .string("NSMutableData"),
                        "$classes": .array([.string("NSMutableData"), .string("NSData"), .string("NSObject")]),
                    ]),
                ]))
    }

    @Test("a plain root is an $objects entry of its own; a date, URL and UUID carry their Foundation keys")
    func scalarShapes() throws {
        #expect(try archive("hello")["$objects"] == .array([.string("$null"), .string("hello")]))
        #expect(try archive("hello")["$top"] == .dictionary(["root": .uid(1)]))
        let date = try archive(.date(Date(timeIntervalSinceReferenceDate: 12.5)))["$objects"]?.arrayValue
        #expect(date?[1] == .dictionary(["$class": .uid(2), "NS.time": .real(12.5)]))
        let url = try archive(.url("https://example.com/"))["$objects"]?.arrayValue
        #expect(url?[1] == .dictionary(["$class": .uid(3), "NS.base": .uid(0), "NS.relative": .uid(2)]))
        #expect(url?[2] == .string("https://example.com/"))
        let uuid = try archive(.uuid(Self.uuid))["$objects"]?.arrayValue
        #expect(
            uuid?[1]
                == .dictionary([
                    "$class": .uid(2), "NS.uuidbytes": .data(withUnsafeBytes(of: Self.uuid.uuid) { Data($0) }),
                ]))
        let nulls = try archive([.null, .null])["$objects"]?.arrayValue
        #expect(nulls?[1] == .dictionary(["$class": .uid(4), "NS.objects": .array([.uid(2), .uid(2)])]))
        #expect(nulls?.count == 5, "NSNull is one object, archived once")
    }

    @Test("one value always gives the same bytes, whatever order its sets and dictionaries hold")
    func repeatable() {
        let first = TransformableValueEncoder().encode(Self.everything)
        var generator = SplitMix(seed: 28)
        for _ in 0..<8 {
            var shuffled: [TransformableValue: TransformableValue] = [:]
            for (key, value) in Self.everything.dictionaryValue!.shuffled(using: &generator) { shuffled[key] = value }
            #expect(TransformableValueEncoder().encode(.dictionary(shuffled)) == first)
        }
    }

    // MARK: Round trips

    @Test("every case survives encoding and decoding, nested, with immutable and mutable classes")
    func roundTrip() throws {
        for mutable in [false, true] {
            let bytes = TransformableValueEncoder(usesMutableClasses: mutable).encode(Self.everything)
            #expect(try TransformableValueDecoder().decode(bytes) == Self.everything)
        }
    }

    @Test(
        "decimal numbers keep every digit",
        arguments: ["0", "3.14", "-0.001", "1200", "12345678901234567890123456789012345678", "-1e-100", "9.99e120"])
    func decimals(text: String) throws {
        let number = try #require(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
        let decoded = try TransformableValueDecoder().decode(TransformableValueEncoder().encode(.decimal(number)))
        #expect(decoded == .decimal(number))
    }

    @Test("NSDecimalNumber's not-a-number round-trips")
    func decimalNaN() throws {
        let decoded = try TransformableValueDecoder().decode(TransformableValueEncoder().encode(.decimal(.nan)))
        guard case .decimal(let number) = decoded else {
            Issue.record("decoded \(decoded)")
            return
        }
        #expect(number.isNaN)
    }

    @Test("a URL archived relative to a base is read as the absolute URL")
    func relativeURL() throws {
        let builder = KeyedArchiveBuilder()
        let url = builder.reserve()
        let base = builder.reserve()
        builder.fill(base, "NSURL", ["NS.base": builder.null, "NS.relative": builder.string("https://example.com/a/")])
        builder.fill(url, "NSURL", ["NS.base": base, "NS.relative": builder.string("b/c?d")])
        let bytes = BinaryPropertyListWriter().write(builder.archive(root: url))
        #expect(try TransformableValueDecoder().decode(bytes) == .url("https://example.com/a/b/c?d"))
    }

    @Test("accessors and literals read like the Swift value an app archived")
    func accessors() {
        let tags = TransformableValue(strings: ["a", "b"])
        #expect(tags == ["a", "b"])
        #expect(tags.stringArray == ["a", "b"])
        #expect(TransformableValue.array(["a", 1]).stringArray == nil)
        #expect(TransformableValue.string("x").stringValue == "x")
        #expect(TransformableValue.integer(3).integerValue == 3)
        #expect(TransformableValue.dictionary(["k": "v"]).dictionaryValue?["k"] == "v")
        #expect(TransformableValue.set([]).className == "NSSet")
        #expect(TransformableValue.set(["a", "b"]) == .set(["b", "a"]))
    }

    @Test("an archive whose root is nil reads as null")
    func nilRoot() throws {
        let builder = KeyedArchiveBuilder()
        let bytes = BinaryPropertyListWriter().write(builder.archive(root: builder.null))
        #expect(try TransformableValueDecoder().decode(bytes) == .null)
    }

    @Test("objects shared by several containers are decoded once and read in each place")
    func sharedObjects() throws {
        let builder = KeyedArchiveBuilder()
        let inner = builder.array([builder.string("x")])
        let outer = builder.array([inner, inner])
        let bytes = BinaryPropertyListWriter().write(builder.archive(root: outer))
        #expect(try TransformableValueDecoder().decode(bytes) == [["x"], ["x"]])
    }
}
