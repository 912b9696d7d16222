import Foundation
import MoltCore
import MoltModel
import MoltTestSupport
import Testing

@Suite("CloudKit's rules")
struct CloudKitRulesTests {
    static func model(_ body: String, usedWithCloudKit: Bool = true) throws -> ObjectModel {
        try XcodeModelReader().read(
            Data(ModelXML.document(body, usedWithCloudKit: usedWithCloudKit).utf8), file: "Notes.xcdatamodel/contents")
    }

    /// A model that keeps every rule: optional attributes or defaults, optional relationships
    /// with inverses, Nullify and Cascade, a configuration holding both ends of its links.
    static let clean = """
        <entity name="Note">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="pinned" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
            <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/>
        </entity>
        <entity name="Folder">
            <relationship name="notes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>
        </entity>
        <configuration name="Cloud" usedWithCloudKit="YES">
            <memberEntity name="Note"/>
            <memberEntity name="Folder"/>
        </configuration>
        """

    @Test("a model that keeps every rule passes, with no warning either")
    func cleanModel() throws {
        let model = try Self.model(Self.clean)
        #expect(CloudKitRules.isMarked(model))
        #expect(CloudKitRules().check(model).isEmpty)
        #expect(ModelChecker(cloudKitRules: CloudKitRules()).check(model).isEmpty)
    }

    /// One broken rule: the model's body, the rule, and the entity, property and line named.
    struct Case: CustomTestStringConvertible, Sendable {
        let rule: CloudKitRules.Rule
        let body: String
        let entity: String
        let property: String?
        let line: Int
        let message: String
        var usedWithCloudKit = true
        var testDescription: String { rule.rawValue }
    }

    static let cases: [Case] = [
        Case(
            rule: .uniquenessConstraint,
            body: """
                <entity name="Note">
                    <attribute name="slug" optional="YES" attributeType="String"/>
                    <uniquenessConstraints><uniquenessConstraint><constraint value="slug"/></uniquenessConstraint></uniquenessConstraints>
                </entity>
                """, entity: "Note", property: nil, line: 3,
            message: "CloudKit does not support uniqueness constraints; this entity has one on slug"),
        Case(
            rule: .unsupportedAttributeType,
            body: """
                <entity name="Note">
                    <attribute name="cache" optional="YES" transient="YES" attributeType="Undefined"/>
                </entity>
                """, entity: "Note", property: "cache", line: 4,
            message: "CloudKit does not support attributes of type Undefined"),
        Case(
            rule: .unsupportedAttributeType,
            body: """
                <entity name="Note">
                    <attribute name="source" optional="YES" transient="YES" attributeType="ObjectID"/>
                </entity>
                """, entity: "Note", property: "source", line: 4,
            message: "CloudKit does not support attributes of type ObjectID"),
        Case(
            rule: .requiredAttributeWithoutDefault,
            body: """
                <entity name="Note">
                    <attribute name="title" attributeType="String"/>
                </entity>
                """, entity: "Note", property: "title", line: 4,
            message: "CloudKit needs every attribute to be optional or to have a default value"),
        Case(
            rule: .requiredRelationship,
            body: """
                <entity name="Note">
                    <relationship name="folder" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/>
                </entity>
                <entity name="Folder">
                    <relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>
                </entity>
                """, entity: "Note", property: "folder", line: 4,
            message: "CloudKit needs every relationship to be optional; this one is required"),
        Case(
            rule: .relationshipWithoutInverse,
            body: """
                <entity name="Note">
                    <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder"/>
                </entity>
                <entity name="Folder"/>
                """, entity: "Note", property: "folder", line: 4,
            message: "CloudKit needs every relationship to have an inverse; this one has none"),
        Case(
            rule: .denyDeleteRule,
            body: """
                <entity name="Note">
                    <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/>
                </entity>
                <entity name="Folder">
                    <relationship name="notes" optional="YES" toMany="YES" deletionRule="Deny" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>
                </entity>
                """, entity: "Folder", property: "notes", line: 7,
            message: "CloudKit does not support the Deny delete rule"),
        Case(
            rule: .orderedRelationship,
            body: """
                <entity name="Note">
                    <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/>
                </entity>
                <entity name="Folder">
                    <relationship name="notes" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>
                </entity>
                """, entity: "Folder", property: "notes", line: 7,
            message: "CloudKit does not support ordered relationships"),
        Case(
            rule: .relationshipAcrossConfigurations,
            body: """
                <entity name="Note">
                    <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/>
                </entity>
                <entity name="Folder">
                    <relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>
                </entity>
                <configuration name="Cloud" usedWithCloudKit="YES">
                    <memberEntity name="Note"/>
                </configuration>
                """, entity: "Note", property: "folder", line: 4,
            message:
                "the configuration Cloud is used with CloudKit, and this relationship leads to Folder, which is not in it",
            usedWithCloudKit: false),
    ]

    @Test("each broken rule is one error naming the entity, property, file and line, with what to do", arguments: cases)
    func eachRule(_ rule: Case) throws {
        let model = try Self.model(rule.body, usedWithCloudKit: rule.usedWithCloudKit)
        let found = CloudKitRules().check(model)
        #expect(found.count == 1, "\(found)")
        let error = try #require(found.first)
        #expect(error.severity == .error)
        #expect(error.rule == rule.rule.rawValue)
        #expect(error.entity == rule.entity && error.property == rule.property)
        #expect(error.location?.file == "Notes.xcdatamodel/contents" && error.location?.line == rule.line)
        #expect(error.message.contains(rule.message), "\(error.message)")
        #expect((error.hint ?? "").count > 40, "a hint says what to do instead")
        #expect(ModelChecker().check(model).errors.isEmpty, "Core Data alone accepts the model: \(found)")
    }

    @Test("the rules cover every entity of a marked model, only a marked configuration's otherwise")
    func scope() throws {
        let body = """
            <entity name="Note">
                <attribute name="title" attributeType="String"/>
            </entity>
            <entity name="Draft" parentEntity="Note"/>
            <entity name="Cache">
                <attribute name="key" attributeType="String"/>
            </entity>
            """
        let marked = try Self.model(body)
        #expect(Set(CloudKitRules().check(marked).compactMap(\.entity)) == ["Note", "Cache"])

        let unmarked = try Self.model(body, usedWithCloudKit: false)
        #expect(!CloudKitRules.isMarked(unmarked))
        #expect(CloudKitRules().entityNames(of: unmarked) == ["Note", "Draft", "Cache"], "every entity on request")

        let configured = try Self.model(
            body + #"<configuration name="Cloud" usedWithCloudKit="YES"><memberEntity name="Draft"/></configuration>"#,
            usedWithCloudKit: false)
        #expect(CloudKitRules.isMarked(configured))
        #expect(CloudKitRules().entityNames(of: configured) == ["Draft", "Note"], "a member and its ancestors")
        #expect(CloudKitRules().check(configured).map(\.entity) == ["Note"])
    }

    @Test("with CloudKit's rules, a missing inverse is their error instead of Core Data's warning")
    func inverseWarningBecomesError() throws {
        let model = try Self.model(
            """
            <entity name="Note">
                <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder"/>
            </entity>
            <entity name="Folder"/>
            """)
        let plain = ModelChecker().check(model)
        #expect(plain.count == 1 && plain.first?.severity == .warning && plain.first?.rule == nil)
        let withCloudKit = ModelChecker(cloudKitRules: CloudKitRules()).check(model)
        #expect(withCloudKit.map(\.severity) == [.error])
        #expect(withCloudKit.first?.rule == CloudKitRules.Rule.relationshipWithoutInverse.rawValue)
    }

    @Test("Xcode's marks are read from <model> and <configuration>; YES and NO only")
    func readsMarks() throws {
        let marked = try Self.model(Self.clean)
        #expect(marked.usedWithCloudKit)
        #expect(marked.configurations.first?.usedWithCloudKit == true)
        let unmarked = try Self.model("<entity name=\"Note\"/>", usedWithCloudKit: false)
        #expect(!unmarked.usedWithCloudKit)
        let no = ModelXML.document("<entity name=\"Note\"/>").replacingOccurrences(
            of: "<model ", with: "<model usedWithCloudKit=\"NO\" ")
        #expect(try !XcodeModelReader().read(Data(no.utf8), file: "contents").usedWithCloudKit)
        let bad = ModelXML.document("<entity name=\"Note\"/>").replacingOccurrences(
            of: "<model ", with: "<model usedWithCloudKit=\"maybe\" ")
        #expect(throws: MoltError.self) { try XcodeModelReader().read(Data(bad.utf8), file: "contents") }
    }
}
