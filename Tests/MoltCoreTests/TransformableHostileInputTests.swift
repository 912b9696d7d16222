import Foundation
import MoltCore
import MoltTestSupport
import Testing

@Suite("Transformable values: hostile archives are refused clearly, never a crash or a hang")
struct TransformableHostileInputTests {
    /// Decodes `plist` (written as a binary property list) and returns the error's message,
    /// recording an issue when it decodes or fails with anything but Foundation's 4864.
    func refusal(_ plist: PropertyList, decoder: TransformableValueDecoder = TransformableValueDecoder()) -> String {
        refusal(BinaryPropertyListWriter().write(plist), decoder: decoder)
    }

    func refusal(_ bytes: Data, decoder: TransformableValueDecoder = TransformableValueDecoder()) -> String {
        do {
            let value = try decoder.decode(bytes, name: "the test value")
            Issue.record("decoded \(value)")
            return ""
        } catch let error as MoltError {
            #expect(error.code == .coderReadCorrupt, "\(error)")
            #expect(error.code.name == "NSCoderReadCorruptError")
            #expect(error.message.hasPrefix("the test value "), "\(error.message)")
            return error.message
        } catch {
            Issue.record("not a MoltError: \(error)")
            return ""
        }
    }

    /// An archive of `objects` (after `$null`) whose root is object 1.
    func archive(_ objects: [PropertyList], root: PropertyList = .uid(1)) -> PropertyList {
        .dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
            "$top": .dictionary(["root": root]), "$objects": .array([.string("$null")] + objects),
        ])
    }

    func classDescription(_ name: String) -> PropertyList {
        .dictionary(["$classname": .string(name), "$classes": .array([.string(name), .string("NSObject")])])
    }

    @Test("a class outside the Foundation property-list classes is named, with the code Foundation gives")
    func unknownClass() {
        let builder = KeyedArchiveBuilder()
        let root = builder.reserve()
        let name = builder.string("red")
        let color = builder.object("UIColor", ["UIRed": .real(1), "UIGreen": .real(0), "UIBlue": .real(0)])
        builder.fill(root, "NSArray", ["NS.objects": .array([name, color])])
        let message = refusal(builder.archive(root: root))
        #expect(message.contains("it holds an object of class UIColor (object 3)"), "\(message)")
        #expect(message.contains("NSArray, NSMutableArray"))
    }

    @Test("an array that contains itself is a cycle, not a hang")
    func selfContainingArray() {
        let message = refusal(
            archive([.dictionary(["$class": .uid(2), "NS.objects": .array([.uid(1)])]), classDescription("NSArray")]))
        #expect(message.contains("object 1 (NSArray) contains itself"), "\(message)")
    }

    @Test("a longer cycle through a dictionary and a URL's base is found too")
    func longerCycles() {
        let dictionary = refusal(
            archive([
                .dictionary(["$class": .uid(3), "NS.keys": .array([.uid(5)]), "NS.objects": .array([.uid(2)])]),
                .dictionary(["$class": .uid(4), "NS.objects": .array([.uid(1)])]),
                classDescription("NSDictionary"), classDescription("NSSet"), .string("key"),
            ]))
        #expect(dictionary.contains("object 1 (NSDictionary) contains itself"), "\(dictionary)")
        let url = refusal(
            archive([
                .dictionary(["$class": .uid(2), "NS.base": .uid(1), "NS.relative": .string("a")]),
                classDescription("NSURL"),
            ]))
        #expect(url.contains("object 1 (NSURL) contains itself"), "\(url)")
    }

    @Test("10,000 nested arrays are refused at the depth limit")
    func deepNesting() {
        let depth = 10_000
        var objects: [PropertyList] = []
        for level in 1...depth {
            let child: PropertyList = level == depth ? .array([]) : .array([.uid(UInt64(level + 1))])
            objects.append(.dictionary(["$class": .uid(UInt64(depth + 1)), "NS.objects": child]))
        }
        objects.append(classDescription("NSMutableArray"))
        let message = refusal(archive(objects))
        #expect(message.contains("nest deeper than 256 levels"), "\(message)")
    }

    @Test("objects shared exponentially (each array holding the next twice) stop at the size limit")
    func exponentialSharing() {
        let levels = 80
        var objects: [PropertyList] = []
        for level in 1...levels {
            let next = PropertyList.uid(UInt64(level + 1))
            objects.append(.dictionary(["$class": .uid(UInt64(levels + 2)), "NS.objects": .array([next, next])]))
        }
        objects.append(.string("leaf"))
        objects.append(classDescription("NSArray"))
        let message = refusal(archive(objects))
        #expect(message.contains("it holds more than 1000000 values"), "\(message)")
    }

    @Test("every truncation of a valid archive is refused")
    func truncated() throws {
        let bytes = TransformableValueEncoder().encode([
            "a": [1, 2.5, true], "b": .date(Date(timeIntervalSinceReferenceDate: 3)),
        ])
        for length in 0..<bytes.count {
            _ = refusal(bytes.prefix(length))
        }
        #expect(refusal(Data("not an archive".utf8)).contains("not a valid binary property list"))
    }

    @Test("a root reference past $objects is refused")
    func rootOutOfRange() {
        let message = refusal(archive([.string("x")], root: .uid(7)))
        #expect(message.contains("$top.root refers to object 7, but $objects has 2"), "\(message)")
    }

    @Test("an element reference past $objects is refused")
    func elementOutOfRange() {
        let message = refusal(
            archive([.dictionary(["$class": .uid(2), "NS.objects": .array([.uid(99)])]), classDescription("NSArray")]))
        #expect(
            message.contains("element 0 of object 1 (NSArray) refers to object 99, but $objects has 3"), "\(message)")
    }

    @Test("a class reference past $objects is refused")
    func classOutOfRange() {
        let message = refusal(archive([.dictionary(["$class": .uid(50), "NS.objects": .array([])])]))
        #expect(message.contains("object 1 has no readable $class"), "\(message)")
    }

    @Test(
        "fields of the wrong type say which field and what it is",
        arguments: [
            (
                ["$class": PropertyList.uid(2), "NS.objects": .string("x")], "NSArray",
                "NS.objects of object 1 (NSArray) is a string, not an array"
            ),
            (["$class": .uid(2)], "NSArray", "object 1 (NSArray) has no NS.objects"),
            (
                ["$class": .uid(2), "NS.keys": .array([]), "NS.objects": .array([.uid(0)])], "NSDictionary",
                "has 0 NS.keys but 1 NS.objects"
            ),
            (["$class": .uid(2), "NS.objects": .array([.uid(0)])], "NSSet", "element 0 of object 1 (NSSet) is nil"),
            (
                ["$class": .uid(2), "NS.time": .string("soon")], "NSDate",
                "NS.time of object 1 (NSDate) is a string, not a number"
            ),
            (["$class": .uid(2), "NS.uuidbytes": .data(Data([1, 2]))], "NSUUID", "has 2 bytes, not 16"),
            (
                ["$class": .uid(2), "NS.string": .integer(3)], "NSMutableString",
                "NS.string of object 1 (NSMutableString) is a integer, not a string"
            ),
            (
                ["$class": .uid(2), "NS.relative": .integer(3)], "NSURL",
                "NS.relative of object 1 (NSURL) is an NSNumber, not a string"
            ),
            (
                [
                    "$class": .uid(2), "NS.length": .integer(9), "NS.exponent": .integer(0),
                    "NS.mantissa": .data(Data(count: 16)),
                ], "NSDecimalNumber", "NS.length is missing or not in 0…8"
            ),
        ])
    func wrongFieldTypes(fields: [String: PropertyList], className: String, expected: String) {
        let message = refusal(archive([.dictionary(fields), classDescription(className)]))
        #expect(message.contains(expected), "\(message)")
    }

    @Test("an NSNumber archived as an object (never written by NSKeyedArchiver) is refused")
    func numberObject() {
        let message = refusal(
            archive([.dictionary(["$class": .uid(2), "NS.intval": .integer(3)]), classDescription("NSNumber")]))
        #expect(message.contains("object 1 (NSNumber) is an NSNumber archived as an object"), "\(message)")
    }

    @Test("a dictionary or array without $class in $objects is not an object")
    func classlessContainer() {
        let message = refusal(archive([.array([.uid(0)])]))
        #expect(message.contains("object 1 is a array without a $class"), "\(message)")
    }

    @Test("an archive without $top.root is refused")
    func noRoot() {
        let plist: PropertyList = .dictionary(["$objects": .array([.string("$null")]), "$top": .dictionary([:])])
        #expect(refusal(plist).contains("its $top has no \"root\""))
    }

    @Test("the limits can be raised or lowered")
    func limits() throws {
        var decoder = TransformableValueDecoder()
        decoder.maximumDepth = 2
        #expect(refusal(TransformableValueEncoder().encode([[[1]]]), decoder: decoder).contains("deeper than 2 levels"))
        decoder.maximumDepth = 3
        #expect(try decoder.decode(TransformableValueEncoder().encode([[[1]]])) == [[[1]]])
        decoder.maximumValueCount = 3
        #expect(
            refusal(TransformableValueEncoder().encode([1, 2, 3]), decoder: decoder).contains("more than 3 values"))
    }

    @Test("random damage to valid archives gives values or MoltErrors, nothing else")
    func mutations() {
        var generator = SplitMix(seed: 0x7A11_5F0E)
        let seeds = [
            TransformableValueEncoder().encode([
                "tags": ["a", "b"], "when": .date(Date(timeIntervalSinceReferenceDate: 1)),
            ]),
            TransformableValueEncoder(usesMutableClasses: true).encode([
                .set([1, 2]), .url("https://e.com"), .uuid(UUID()), .decimal(12.5),
            ]),
        ]
        for _ in 0..<3000 {
            var bytes = Array(seeds[Int(generator.next() % UInt64(seeds.count))])
            for _ in 0..<(1 + generator.next() % 4) {
                let position = Int(generator.next() % UInt64(bytes.count))
                bytes[position] = UInt8(truncatingIfNeeded: generator.next())
            }
            do {
                _ = try TransformableValueDecoder().decode(Data(bytes))
            } catch let error as MoltError {
                #expect(error.code == .coderReadCorrupt)
            } catch {
                Issue.record("not a MoltError: \(error)")
            }
        }
    }
}
