import Foundation
import MoltCore
import MoltModel
import MoltTestSupport
import Testing

@Suite("Checking models")
struct ModelCheckerTests {
    func diagnostics(_ body: String) throws -> [Diagnostic] {
        ModelChecker().check(try XcodeModelReader().read(Data(ModelXML.document(body).utf8), file: "contents"))
    }

    @Test("the example model and a consistent model have no errors")
    func clean() throws {
        for version in ["Blog", "Blog 2"] {
            let model = try Examples.model(version)
            #expect(ModelChecker().check(model).isEmpty, "\(version)")
            try ModelChecker().validate(model)
        }
    }

    @Test(
        "each kind of inconsistency is an error naming the entity, property and line",
        arguments: [
            (
                """
                <entity name="A"><attribute name="x" attributeType="String"/></entity>
                <entity name="A"><attribute name="y" attributeType="String"/></entity>
                """, "another entity has the same name", "A", nil
            ),
            (
                "<entity name=\"A\" parentEntity=\"Ghost\"/>", "parent entity \"Ghost\" does not exist", "A", nil
            ),
            (
                """
                <entity name="A" parentEntity="B"/>
                <entity name="B" parentEntity="A"/>
                """, "inherits from itself", "A", nil
            ),
            (
                """
                <entity name="A"><attribute name="x" attributeType="String"/><attribute name="x" attributeType="String"/></entity>
                """, "two properties are called \"x\"", "A", "x"
            ),
            (
                """
                <entity name="P"><attribute name="x" attributeType="String"/></entity>
                <entity name="C" parentEntity="P"><attribute name="x" attributeType="String"/></entity>
                """, "already inherited from P", "C", "x"
            ),
            (
                "<entity name=\"A\"><relationship name=\"r\" maxCount=\"1\" destinationEntity=\"Nowhere\"/></entity>",
                "destination entity \"Nowhere\" does not exist", "A", "r"
            ),
            (
                """
                <entity name="A"><relationship name="b" optional="YES" maxCount="1" destinationEntity="B" inverseName="missing" inverseEntity="B"/></entity>
                <entity name="B"/>
                """, "inverse relationship \"missing\" does not exist on B", "A", "b"
            ),
            (
                """
                <entity name="A"><relationship name="b" optional="YES" maxCount="1" destinationEntity="B" inverseName="a" inverseEntity="B"/></entity>
                <entity name="B"><relationship name="a" optional="YES" maxCount="1" destinationEntity="A" inverseName="other" inverseEntity="A"/>
                <relationship name="other" optional="YES" maxCount="1" destinationEntity="A"/></entity>
                """, "does not point back", "A", "b"
            ),
            (
                """
                <entity name="A"><relationship name="b" optional="YES" maxCount="1" destinationEntity="B" inverseName="a" inverseEntity="C"/></entity>
                <entity name="B"><relationship name="a" optional="YES" maxCount="1" destinationEntity="A" inverseName="b" inverseEntity="A"/></entity>
                <entity name="C"/>
                """, "inverse entity \"C\" is not the destination entity", "A", "b"
            ),
            (
                "<entity name=\"A\"><relationship name=\"r\" toMany=\"YES\" minCount=\"5\" maxCount=\"2\" destinationEntity=\"A\" inverseName=\"r\" inverseEntity=\"A\"/></entity>",
                "minCount 5 is larger than maxCount 2", "A", "r"
            ),
            (
                "<entity name=\"A\"><attribute name=\"x\" attributeType=\"Undefined\"/></entity>",
                "cannot be stored", "A", "x"
            ),
            (
                """
                <entity name="A"><attribute name="x" attributeType="String"/>
                <uniquenessConstraints><uniquenessConstraint><constraint value="nope"/></uniquenessConstraint></uniquenessConstraints></entity>
                """, "names \"nope\", which the entity does not have", "A", nil
            ),
            (
                """
                <entity name="A"><attribute name="x" attributeType="String"/>
                <fetchIndex name="byY"><fetchIndexElement property="y" type="Binary" order="ascending"/></fetchIndex></entity>
                """, "fetch index \"byY\" names \"y\"", "A", nil
            ),
        ] as [(String, String, String, String?)])
    func errors(body: String, message: String, entity: String, property: String?) throws {
        let found = try diagnostics(body).errors
        let match = found.first { $0.message.contains(message) }
        #expect(match != nil, "expected “\(message)” in \(found.map(\.description))")
        #expect(match?.entity == entity)
        #expect(match?.property == property)
        #expect(match?.location?.line != nil)
    }

    @Test("a configuration naming an unknown entity is an error")
    func configuration() throws {
        let found = try diagnostics(
            """
            <entity name="A"/>
            <configuration name="Cloud"><memberEntity name="A"/><memberEntity name="Zed"/></configuration>
            """)
        #expect(found.errors.map(\.message) == ["the configuration \"Cloud\" names the unknown entity \"Zed\""])
    }

    @Test("a relationship without inverse and an unreadable default are warnings, not errors")
    func warnings() throws {
        let found = try diagnostics(
            """
            <entity name="A">
                <attribute name="n" attributeType="Integer 16" defaultValueString="70000"/>
                <attribute name="odd" attributeType="Integer 64" defaultValueString="NO"/>
                <relationship name="b" optional="YES" maxCount="1" destinationEntity="A"/>
            </entity>
            """)
        #expect(!found.hasErrors)
        #expect(found.warnings.count == 2)
        #expect(found.warnings.contains { $0.property == "b" && $0.message.contains("no inverse") })
        #expect(found.warnings.contains { $0.property == "n" && $0.message.contains("70000") })
    }

    @Test("validate throws one error that lists every problem")
    func validateListsAll() throws {
        let model = try XcodeModelReader().read(
            Data(
                ModelXML.document(
                    """
                    <entity name="A" parentEntity="Ghost"><relationship name="r" maxCount="1" destinationEntity="Nowhere"/></entity>
                    """
                ).utf8), file: "contents")
        let error = #expect(throws: MoltError.self) { try ModelChecker().validate(model) }
        #expect(error?.code == .invalidModel)
        #expect(error?.message.hasPrefix("the model has 2 errors") == true)
        #expect(error?.details.count == 2)
    }
}
