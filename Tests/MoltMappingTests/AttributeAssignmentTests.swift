import Foundation
import MoltCore
import MoltMapping
import MoltModel
import MoltStore
import Testing

@Suite("Storing expression values in attributes")
struct AttributeAssignmentTests {
    func convert(_ value: ExpressionValue, _ type: AttributeType) throws -> AttributeValue? {
        try AttributeAssignment.convert(value, to: Attribute(name: "a", type: type))
    }

    @Test(
        "accepted conversions",
        arguments: [
            (ExpressionValue.integer(7), AttributeType.integer16, AttributeValue.integer(7)),
            (.double(3.0), .integer64, .integer(3)), (.bool(true), .integer32, .integer(1)),
            (.string("42"), .integer64, .integer(42)),
            (.decimal(Decimal(12)), .integer64, .integer(12)), (.integer(2), .double, .double(2)),
            (.string("2.5"), .float, .double(2.5)),
            (.string("0.10"), .decimal, .decimal(Decimal(string: "0.10")!)), (.integer(0), .boolean, .bool(false)),
            (.string("YES"), .boolean, .bool(true)), (.uri("https://x"), .string, .string("https://x")),
            (
                .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!), .string,
                .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
            ),
            (.string("https://x"), .uri, .uri("https://x")),
            (.string("2001-01-01T00:00:01Z"), .date, .date(Date(timeIntervalSinceReferenceDate: 1))),
            (
                .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), .uuid,
                .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
            ),
            (.data(Data([1])), .transformable, .data(Data([1]))),
        ] as [(ExpressionValue, AttributeType, AttributeValue)])
    func accepted(value: ExpressionValue, type: AttributeType, expected: AttributeValue) throws {
        #expect(try convert(value, type) == expected)
    }

    @Test("nil stores no value")
    func null() throws {
        for type in [AttributeType.string, .integer64, .date] {
            #expect(try convert(.null, type) == nil)
        }
    }

    @Test(
        "refused conversions say why",
        arguments: [
            (ExpressionValue.integer(40_000), AttributeType.integer16, "out of its range"),
            (.double(2.5), .integer64, "not a whole number"),
            (.string("ten"), .integer64, "\"ten\" is not a number"), (.integer(5), .string, "use string()"),
            (.integer(5), .date, "use date()"), (.string("soon"), .date, "not an ISO 8601 date"),
            (.string("maybe"), .boolean, "not true or false"),
            (.string("x"), .uuid, "not a UUID"), (.string("x"), .binary, "cannot be stored"),
            (.collection([]), .string, "cannot be stored"),
            (.object(ObjectReference(.source, ObjectID(entity: "A", primaryKey: 1))), .integer64, "cannot be stored"),
        ] as [(ExpressionValue, AttributeType, String)])
    func refused(value: ExpressionValue, type: AttributeType, message: String) {
        let error = #expect(throws: MoltError.self) { _ = try convert(value, type) }
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        #expect(error?.property == "a")
    }

    /// The shortcut the engine takes before converting (`unchanged(_:into:)`) must give what
    /// converting gives, for every value kind into every attribute type it answers for; and it
    /// must answer for the plain cases (else it saves nothing).
    @Test("values stored as they are: the shortcut agrees with converting")
    func unchangedAgreesWithConvert() throws {
        let values: [ExpressionValue] = [
            .null, .integer(0), .integer(1), .integer(40_000), .integer(3_000_000_000), .integer(.min), .double(2.5),
            .double(-0.0), .double(.nan), .double(.infinity), .bool(true), .bool(false), .string(""),
            .string("12"), .string("text"), .string("2001-01-01T00:00:01Z"),
            .date(Date(timeIntervalSinceReferenceDate: 7)),
            .data(Data()), .data(Data([1, 2])), .uri("https://x"),
            .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
            .decimal(Decimal(string: "0.10")!),
        ]
        var answered = 0
        for type in AttributeType.allCases {
            for value in values {
                guard let fast = AttributeAssignment.unchanged(value, into: type) else { continue }
                answered += 1
                let converted = try convert(value, type)
                if case .double(let a) = fast, case .double(let b)? = converted, a.isNaN {
                    #expect(b.isNaN, "\(value) into \(type)")
                } else {
                    #expect(converted == fast, "\(value) into \(type)")
                }
            }
        }
        #expect(AttributeAssignment.unchanged(.integer(40_000), into: .integer16) == nil)
        #expect(AttributeAssignment.unchanged(.string("12"), into: .integer64) == nil)
        #expect(answered >= 20)
    }
}
