import Foundation
import MoltCore
import Testing

@Suite("MoltError")
struct MoltErrorTests {
    @Test("the one-line description gives location, subject and message")
    func oneLine() {
        let error = MoltError(
            .fileReadCorruptFile, "unknown attribute type \"Colour\"",
            location: SourceLocation(file: "Blog.xcdatamodel/contents", line: 12, column: 5, element: "attribute"),
            entity: "Post", property: "tint")
        #expect(
            error.description
                == "Blog.xcdatamodel/contents:12:5: <attribute>: Post.tint: unknown attribute type \"Colour\"")
    }

    @Test("the detailed description adds the code, what to do, details and causes")
    func detailed() {
        let cause = MoltError(.sqlite, "disk I/O error")
        let error = MoltError(
            .incompatibleVersionHash, "the store does not match", recovery: "Migrate the store.",
            details: ["Author differs"], underlying: cause)
        let text = error.detailedDescription
        #expect(text.contains("134100 (NSPersistentStoreIncompatibleVersionHashError)"))
        #expect(text.contains("what to do: Migrate the store."))
        #expect(text.contains("- Author differs"))
        #expect(text.contains("caused by: disk I/O error"))
    }

    @Test("only cancellation and SQLite errors are transient")
    func transient() {
        #expect(MoltError.Code.migrationCancelled.isTransient)
        #expect(MoltError.Code.sqlite.isTransient)
        #expect(!MoltError.Code.incompatibleVersionHash.isTransient)
        #expect(!MoltError.Code.validationMissingMandatoryProperty.isTransient)
    }

    @Test("codes keep Core Data's numbers")
    func numbers() {
        #expect(MoltError.Code.incompatibleVersionHash.rawValue == 134_100)
        #expect(MoltError.Code.sqlite.rawValue == 134_180)
        #expect(MoltError.Code.validationMultiple.rawValue == 1560)
        #expect(MoltError.Code(rawValue: 99).name == "code 99")
    }

    @Test("hex round-trips and rejects non-hex")
    func hex() {
        let data = Data([0x00, 0xAB, 0xFF])
        #expect(data.hexString == "00abff")
        #expect(Data(hexString: "00ABff") == data)
        #expect(Data(hexString: "0g") == nil)
        #expect(Data(hexString: "abc") == nil)
    }
}
