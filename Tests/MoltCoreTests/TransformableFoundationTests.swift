import Foundation
import MoltCore
import Testing

/// Molt's keyed-archive codec against Foundation's own `NSKeyedArchiver` and
/// `NSKeyedUnarchiver` (swift-corelibs-foundation here). Where corelibs writes something other
/// than Apple's Foundation, the test says so and holds Molt to Apple's documented behaviour.
@Suite("Transformable values: interoperation with Foundation's NSKeyedArchiver")
struct TransformableFoundationTests {
    /// A Foundation object and the value it archives as.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let make: @Sendable () -> NSObject
        let value: TransformableValue
        /// Whether the class is a mutable one (Molt writes it with `usesMutableClasses`).
        var isMutable = false
        /// Whether corelibs writes the same property list as Apple, so Molt's must equal it.
        var corelibsMatchesApple = true

        var testDescription: String { name }
    }

    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    static let cases: [Case] = [
        Case(name: "NSString", make: { NSString(string: "héllo") }, value: "héllo"),
        // corelibs archives an NSMutableString inline like an NSString; Apple writes an object
        // with NS.string and class NSMutableString, which Molt writes (checked in mutableClasses).
        Case(
            name: "NSMutableString", make: { NSMutableString(string: "text") }, value: "text",
            corelibsMatchesApple: false),
        Case(name: "NSNumber integer", make: { NSNumber(value: 42) }, value: 42),
        Case(name: "NSNumber negative", make: { NSNumber(value: -5) }, value: .integer(-5)),
        Case(name: "NSNumber Int64.max", make: { NSNumber(value: Int64.max) }, value: .integer(.max)),
        Case(name: "NSNumber double", make: { NSNumber(value: 1.5) }, value: 1.5),
        Case(name: "NSNumber bool", make: { NSNumber(value: true) }, value: true),
        Case(
            name: "NSArray", make: { NSArray(array: [NSString(string: "a"), NSNumber(value: 1)]) }, value: ["a", 1]),
        Case(
            name: "NSMutableArray", make: { NSMutableArray(array: [NSString(string: "a")]) }, value: ["a"],
            isMutable: true),
        Case(
            name: "NSDictionary", make: { NSDictionary(dictionary: ["k": NSString(string: "v")]) }, value: ["k": "v"]),
        Case(
            name: "NSMutableDictionary", make: { NSMutableDictionary(dictionary: ["k": NSNumber(value: 2)]) },
            value: ["k": 2], isMutable: true),
        Case(name: "NSSet", make: { NSSet(array: [NSString(string: "a")]) }, value: .set(["a"])),
        Case(
            name: "NSMutableSet", make: { NSMutableSet(array: [NSString(string: "a")]) }, value: .set(["a"]),
            isMutable: true),
        Case(
            name: "NSDate", make: { NSDate(timeIntervalSinceReferenceDate: 700_000_000.5) },
            value: .date(Date(timeIntervalSinceReferenceDate: 700_000_000.5))),
        Case(name: "NSData", make: { NSData(data: Data([1, 2, 3])) }, value: .data(Data([1, 2, 3]))),
        Case(
            name: "NSMutableData", make: { NSMutableData(data: Data([4, 5])) }, value: .data(Data([4, 5])),
            isMutable: true),
        Case(
            name: "NSURL", make: { NSURL(string: "https://example.com/a?b=c")! },
            value: .url("https://example.com/a?b=c")),
        Case(name: "NSUUID", make: { NSUUID(uuidString: uuid.uuidString)! }, value: .uuid(uuid)),
        Case(name: "NSNull", make: { NSNull() }, value: .null),
    ]

    // MARK: Foundation's side

    static func foundationArchive(_ object: NSObject) throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
    }

    /// Unarchives as `NSSecureUnarchiveFromData` does: secure coding, the property-list classes.
    static func foundationUnarchive(_ data: Data) throws -> NSObject? {
        let classes: [AnyClass] = [
            NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self,
            NSURL.self, NSUUID.self, NSNull.self,
        ]
        return try NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: data) as? NSObject
    }

    // MARK: Each class

    @Test("Foundation's archive of each class decodes to its value", arguments: cases)
    func decodesFoundationArchives(_ example: Case) throws {
        let bytes = try Self.foundationArchive(example.make())
        #expect(try TransformableValueDecoder().decode(bytes) == example.value)
    }

    @Test("Molt's archive of each value unarchives with Foundation as an equal object", arguments: cases)
    func foundationReadsMoltArchives(_ example: Case) throws {
        let object = try #require(try Self.foundationUnarchive(TransformableValueEncoder().encode(example.value)))
        #expect(object.isEqual(example.make()), "\(object)")
    }

    @Test("Molt writes the property list Foundation writes", arguments: cases.filter(\.corelibsMatchesApple))
    func sameArchive(_ example: Case) throws {
        let theirs = try BinaryPropertyListReader().read(try Self.foundationArchive(example.make()))
        let ours = try BinaryPropertyListReader().read(TransformableValueEncoder().encode(example.value))
        if !example.isMutable {
            #expect(ours == theirs)
        } else {
            let mutable = TransformableValueEncoder(usesMutableClasses: true).encode(example.value)
            #expect(try BinaryPropertyListReader().read(mutable) == theirs)
        }
    }

    @Test("mutable classes unarchive as the mutable Foundation classes")
    func mutableClasses() throws {
        for example in Self.cases where example.isMutable {
            let bytes = TransformableValueEncoder(usesMutableClasses: true).encode(example.value)
            let object = try #require(try Self.foundationUnarchive(bytes))
            #expect(object.isEqual(example.make()), "\(example.name)")
            switch example.name {
            case "NSMutableArray": #expect(object is NSMutableArray)
            case "NSMutableDictionary": #expect(object is NSMutableDictionary)
            case "NSMutableSet": #expect(object is NSMutableSet)
            case "NSMutableData": #expect(object is NSMutableData)
            default: Issue.record("no class check for \(example.name)")
            }
        }
        // Apple's form of an NSMutableString (an object with NS.string), which corelibs reads.
        let string = try #require(
            try Self.foundationUnarchive(TransformableValueEncoder(usesMutableClasses: true).encode("text")))
        #expect(string.isEqual(NSString(string: "text")))
        #expect(string is NSMutableString)
    }

    @Test("immutable classes unarchive as immutable Foundation classes")
    func immutableClasses() throws {
        let object = try #require(try Self.foundationUnarchive(TransformableValueEncoder().encode(["a"])))
        #expect(object is NSArray)
        #expect(!(object is NSMutableArray))
    }

    // MARK: Everything nested

    /// Every class listed, nested in one another.
    static func nestedObject() -> NSObject {
        let mutableArray = NSMutableArray(array: [NSMutableString(string: "m"), NSNumber(value: 2.25)])
        let mutableDictionary = NSMutableDictionary(dictionary: [
            "data": NSMutableData(data: Data([7, 8])), "null": NSNull(),
        ])
        let set = NSSet(array: [NSString(string: "s"), NSNumber(value: 9)])
        let mutableSet = NSMutableSet(array: [NSUUID(uuidString: uuid.uuidString)!])
        return NSDictionary(dictionary: [
            "string": NSString(string: "plain"),
            "integer": NSNumber(value: -12),
            "double": NSNumber(value: 0.1),
            "bool": NSNumber(value: false),
            "date": NSDate(timeIntervalSinceReferenceDate: -1.5),
            "data": NSData(data: Data([0xFF])),
            "url": NSURL(string: "file:///tmp/a%20b")!,
            "array": NSArray(array: [mutableArray, mutableDictionary, set, mutableSet]),
            "inner": NSMutableDictionary(dictionary: [NSNumber(value: 1): NSArray(array: [NSNull()])]),
        ])
    }

    static let nestedValue: TransformableValue = [
        "string": "plain",
        "integer": .integer(-12),
        "double": 0.1,
        "bool": false,
        "date": .date(Date(timeIntervalSinceReferenceDate: -1.5)),
        "data": .data(Data([0xFF])),
        "url": .url("file:///tmp/a%20b"),
        "array": [
            ["m", 2.25],
            ["data": .data(Data([7, 8])), "null": .null],
            .set(["s", 9]),
            .set([.uuid(uuid)]),
        ],
        "inner": [1: [.null]],
    ]

    @Test("every class nested: Foundation → Molt → Foundation gives an equal object")
    func nestedFromFoundation() throws {
        let original = Self.nestedObject()
        let decoded = try TransformableValueDecoder().decode(try Self.foundationArchive(original))
        #expect(decoded == Self.nestedValue)
        for mutable in [false, true] {
            let again = try #require(
                try Self.foundationUnarchive(TransformableValueEncoder(usesMutableClasses: mutable).encode(decoded)))
            #expect(again.isEqual(original), "\(again)")
        }
    }

    @Test("every class nested: Molt → Foundation → Molt gives an equal value")
    func nestedFromMolt() throws {
        for mutable in [false, true] {
            let bytes = TransformableValueEncoder(usesMutableClasses: mutable).encode(Self.nestedValue)
            let object = try #require(try Self.foundationUnarchive(bytes))
            #expect(object.isEqual(Self.nestedObject()))
            let again = try TransformableValueDecoder().decode(try Self.foundationArchive(object))
            #expect(again == Self.nestedValue)
        }
    }

    @Test("a URL Foundation archived relative to a base reads as its absolute URL")
    func relativeURL() throws {
        let url = NSURL(string: "b/c?d", relativeTo: URL(string: "https://example.com/a/"))!
        let decoded = try TransformableValueDecoder().decode(try Self.foundationArchive(url))
        #expect(decoded == .url("https://example.com/a/b/c?d"))
        let again = try #require(try Self.foundationUnarchive(TransformableValueEncoder().encode(decoded)) as? NSURL)
        #expect(again.absoluteString == url.absoluteString)
        #expect(again.baseURL == nil, "written back as an absolute URL")
    }

    @Test("equal strings Foundation archives once are read in each place")
    func sharedEntries() throws {
        // Foundation archives two equal strings once; Molt reads both places.
        let array = NSArray(array: [NSString(string: "same"), NSString(string: "same")])
        #expect(try TransformableValueDecoder().decode(try Self.foundationArchive(array)) == ["same", "same"])
    }
}
