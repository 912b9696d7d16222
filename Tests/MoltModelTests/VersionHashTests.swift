import Foundation
import MoltCore
import MoltModel
import MoltTestSupport
import Testing

@Suite("Version hashes")
struct VersionHashTests {
    func hashes(_ body: String) throws -> [String: Data] {
        try XcodeModelReader().read(Data(ModelXML.document(body).utf8), file: "contents").entityVersionHashes()
    }

    static let base = """
        <entity name="Author">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
        </entity>
        <entity name="Book">
            <attribute name="title" attributeType="String"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
        </entity>
        """

    @Test(
        "what Core Data leaves out of hashes does not change them",
        arguments: [
            (
                "<attribute name=\"name\" optional=\"YES\" attributeType=\"String\"/>",
                "<attribute name=\"name\" optional=\"YES\" attributeType=\"String\" elementID=\"fullName\" defaultValueString=\"x\" minValueString=\"1\" regularExpressionString=\".*\" indexed=\"YES\" usesScalarValueType=\"YES\"/>"
            ),
            (
                "deletionRule=\"Nullify\" destinationEntity=\"Book\"",
                "deletionRule=\"Cascade\" destinationEntity=\"Book\""
            ),
            (
                "<entity name=\"Author\">",
                "<entity name=\"Author\" representedClassName=\"AuthorMO\" elementID=\"Writer\" codeGenerationType=\"class\">"
            ),
        ])
    func unhashedDetails(original: String, changed: String) throws {
        #expect(try hashes(Self.base) == hashes(Self.base.replacingOccurrences(of: original, with: changed)))
    }

    @Test(
        "what Core Data hashes changes the entity's hash",
        arguments: [
            (
                "<attribute name=\"name\" optional=\"YES\" attributeType=\"String\"/>",
                "<attribute name=\"name\" attributeType=\"String\"/>"
            ),
            (
                "<attribute name=\"name\" optional=\"YES\" attributeType=\"String\"/>",
                "<attribute name=\"name\" optional=\"YES\" attributeType=\"URI\"/>"
            ),
            (
                "<attribute name=\"name\" optional=\"YES\" attributeType=\"String\"/>",
                "<attribute name=\"fullName\" optional=\"YES\" attributeType=\"String\"/>"
            ),
            (
                "<attribute name=\"name\" optional=\"YES\" attributeType=\"String\"/>",
                "<attribute name=\"name\" optional=\"YES\" attributeType=\"String\" versionHashModifier=\"v2\"/>"
            ),
            (
                "<attribute name=\"name\" optional=\"YES\" attributeType=\"String\"/>",
                "<attribute name=\"name\" optional=\"YES\" attributeType=\"String\" preserveAfterDeletion=\"YES\"/>"
            ),
            ("<entity name=\"Author\">", "<entity name=\"Author\" versionHashModifier=\"2\">"),
            ("<entity name=\"Author\">", "<entity name=\"Author\" isAbstract=\"YES\">"),
            ("toMany=\"YES\" deletionRule", "toMany=\"YES\" ordered=\"YES\" deletionRule"),
            ("toMany=\"YES\" deletionRule", "toMany=\"YES\" maxCount=\"9\" deletionRule"),
            ("inverseName=\"author\"", "inverseName=\"writer\""),
        ])
    func hashedDetails(original: String, changed: String) throws {
        let before = try hashes(Self.base)
        let after = try hashes(
            Self.base.replacingOccurrences(of: original, with: changed).replacingOccurrences(
                of: "name=\"author\" optional",
                with: changed.contains("writer") ? "name=\"writer\" optional" : "name=\"author\" optional"))
        #expect(before["Author"] != after["Author"])
    }

    @Test("transient properties and fetched properties are left out of the entity hash")
    func transientExcluded() throws {
        let with = Self.base.replacingOccurrences(
            of: "<entity name=\"Author\">",
            with: """
                <entity name="Author"><attribute name="cache" optional="YES" transient="YES" attributeType="String"/>
                <fetchedProperty name="recent" optional="YES"><fetchRequest name="r" entity="Book"/></fetchedProperty>
                """)
        #expect(try hashes(Self.base) == hashes(with))
    }

    @Test("property order in the file does not matter; properties are hashed by name")
    func orderIndependent() throws {
        let reordered = """
            <entity name="Book">
                <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
                <attribute name="title" attributeType="String"/>
            </entity>
            <entity name="Author">
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Author"/>
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            """.replacingOccurrences(
                of: "inverseName=\"author\" inverseEntity=\"Author\"",
                with: "inverseName=\"author\" inverseEntity=\"Book\"")
        #expect(try hashes(Self.base) == hashes(reordered))
    }

    @Test("a sub-entity's hash depends on its parent's, and inherited properties count")
    func inheritance() throws {
        let parent = "<entity name=\"P\"><attribute name=\"a\" attributeType=\"String\"/></entity>"
        let child = "<entity name=\"C\" parentEntity=\"P\"><attribute name=\"b\" attributeType=\"String\"/></entity>"
        let one = try hashes(parent + child)
        let two = try hashes(parent.replacingOccurrences(of: "name=\"a\"", with: "name=\"z\"") + child)
        #expect(one["C"] != two["C"])
        #expect(one["C"] != one["P"])
    }

    @Test("uniqueness constraints change the hash; their order does not")
    func constraints() throws {
        func entity(_ constraints: String) -> String {
            """
            <entity name="E"><attribute name="a" attributeType="String"/><attribute name="b" attributeType="String"/>
            <uniquenessConstraints>\(constraints)</uniquenessConstraints></entity>
            """
        }
        let a = "<uniquenessConstraint><constraint value=\"a\"/></uniquenessConstraint>"
        let ab = "<uniquenessConstraint><constraint value=\"a\"/><constraint value=\"b\"/></uniquenessConstraint>"
        #expect(try hashes(entity(a)) != hashes(entity("")))
        #expect(try hashes(entity(a + ab)) == hashes(entity(ab + a)))
        #expect(try hashes(entity(ab)) != hashes(entity(a)))
    }

    @Test("the digest covers every entity's name and hash")
    func digest() throws {
        let model = try XcodeModelReader().read(Data(ModelXML.document(Self.base).utf8), file: "contents")
        let digest = try model.versionHashesDigest()
        #expect(Data(base64Encoded: digest)?.count == 64)
        var hashes = try model.entityVersionHashes()
        hashes["Book"] = Data(repeating: 0, count: 32)
        #expect(VersionHasher.digest(of: hashes) != digest)
    }

    @Test("a cycle of parents is an error, not a hang")
    func cycle() throws {
        #expect(throws: MoltError.self) {
            try hashes("<entity name=\"A\" parentEntity=\"B\"/><entity name=\"B\" parentEntity=\"A\"/>")
        }
    }
}
