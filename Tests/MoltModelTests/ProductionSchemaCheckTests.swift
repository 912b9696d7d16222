import Foundation
import MoltCore
import MoltModel
import MoltTestSupport
import Testing

@Suite("CloudKit's production schema")
struct ProductionSchemaCheckTests {
    /// The version in Production: posts with authors and tags, and media with photos. It
    /// keeps CloudKit's rules.
    static let production = """
        <entity name="Post">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="rating" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
            <attribute name="summary" optional="YES" attributeType="String"/>
            <attribute name="views" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="posts" inverseEntity="Author"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="posts" inverseEntity="Tag"/>
        </entity>
        <entity name="Author">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="posts" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Post" inverseName="author" inverseEntity="Post"/>
        </entity>
        <entity name="Tag">
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="posts" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Post" inverseName="tags" inverseEntity="Post"/>
        </entity>
        <entity name="Media">
            <attribute name="url" optional="YES" attributeType="URI"/>
        </entity>
        <entity name="Photo" parentEntity="Media">
            <attribute name="width" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
        </entity>
        """

    static func model(_ body: String, version: String) throws -> ObjectModel {
        try XcodeModelReader().read(
            Data(ModelXML.document(body, usedWithCloudKit: true).utf8),
            file: "Blog.xcdatamodeld/\(version).xcdatamodel/contents",
            name: version)
    }

    /// The problems of `body` as version "Blog 3" against the production version "Blog".
    static func changes(_ body: String) throws -> [Diagnostic] {
        let check = ProductionSchemaCheck(production: try model(production, version: "Blog"))
        return check.check(try model(body, version: "Blog 3"))
    }

    static func edited(_ replacements: [(String, String)]) -> String {
        var body = production
        for (old, new) in replacements {
            precondition(body.contains(old), "the production model has no \(old)")
            body = body.replacingOccurrences(of: old, with: new)
        }
        return body
    }

    @Test(
        "a version that only adds passes: entities, optional or defaulted attributes, relationships, a property moved up"
    )
    func additionsPass() throws {
        let body = Self.edited([
            (
                #"<attribute name="views""#,
                #"<attribute name="subtitle" optional="YES" attributeType="String"/><attribute name="likes" attributeType="Integer 32" defaultValueString="0"/><attribute name="views""#
            ),
            (
                #"<relationship name="tags""#,
                #"<relationship name="comments" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Comment" inverseName="post" inverseEntity="Comment"/><relationship name="tags""#
            ),
            (
                #"<entity name="Media">"#,
                #"<entity name="Comment"><attribute name="text" optional="YES" attributeType="String"/><relationship name="post" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Post" inverseName="comments" inverseEntity="Post"/></entity><entity name="Media">"#
            ),
            // Photo.width moves up to Media: Photo records keep the field, Media gains it.
            (
                #"<attribute name="width" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>"#, ""
            ),
            (
                #"<attribute name="url" optional="YES" attributeType="URI"/>"#,
                #"<attribute name="url" optional="YES" attributeType="URI"/><attribute name="width" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>"#
            ),
            // Not part of CloudKit's schema: delete rules, defaults, indexes, class names.
            (#"deletionRule="Cascade" destinationEntity="Post""#, #"deletionRule="Nullify" destinationEntity="Post""#),
            (#"<entity name="Tag">"#, #"<entity name="Tag" representedClassName="Keyword">"#),
        ])
        let found = try Self.changes(body)
        #expect(found.isEmpty, "\(found.map(\.description))")
        #expect(try Self.changes(Self.production).isEmpty)
    }

    /// One kind of change, made to the production model.
    struct Case: CustomTestStringConvertible, Sendable {
        let change: ProductionSchemaCheck.Change
        let edits: [(String, String)]
        let entity: String
        let property: String?
        /// What the message says happens, besides naming both versions.
        let effect: String
        var testDescription: String { "\(change.rawValue): \(effect)" }
    }

    static let cases: [Case] = [
        Case(
            change: .entityRemoved,
            edits: [
                (
                    """
                    <entity name="Photo" parentEntity="Media">
                        <attribute name="width" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
                    </entity>
                    """, ""
                )
            ],
            entity: "Photo", property: nil,
            effect: "older app versions keep syncing Photo records, which Blog 3 ignores"),
        Case(
            change: .entityRenamed,
            edits: [
                (
                    #"<entity name="Photo" parentEntity="Media">"#,
                    #"<entity name="Picture" parentEntity="Media" elementID="Photo">"#
                )
            ],
            entity: "Picture", property: nil, effect: "CloudKit cannot rename a record type"),
        Case(
            change: .entityParentChanged,
            edits: [(#"<entity name="Photo" parentEntity="Media">"#, #"<entity name="Photo">"#)],
            entity: "Photo", property: nil, effect: "from the record type CD_Media to CD_Photo"),
        Case(
            change: .entityMadeAbstract,
            edits: [(#"<entity name="Media">"#, #"<entity name="Media" isAbstract="YES">"#)],
            entity: "Media", property: nil, effect: "older app versions keep making Media objects"),
        Case(
            change: .attributeRemoved,
            edits: [(#"<attribute name="summary" optional="YES" attributeType="String"/>"#, "")],
            entity: "Post", property: "summary", effect: "find it empty on every record Blog 3 makes"),
        Case(
            change: .attributeRemoved,
            edits: [
                (
                    #"<attribute name="summary" optional="YES""#,
                    #"<attribute name="summary" optional="YES" transient="YES""#
                )
            ],
            entity: "Post", property: "summary", effect: "transient in Blog 3, so no longer synced"),
        Case(
            change: .attributeRenamed,
            edits: [
                (
                    #"<attribute name="summary" optional="YES""#,
                    #"<attribute name="abstract" elementID="summary" optional="YES""#
                )
            ],
            entity: "Post", property: "abstract", effect: "writes CD_abstract, which older app versions never read"),
        Case(
            change: .attributeTypeChanged,
            edits: [(#"attributeType="Integer 16""#, #"attributeType="Double""#)],
            entity: "Post", property: "rating",
            effect: "the type is Integer 16 in the production schema (Blog) and Double in Blog 3"),
        Case(
            change: .attributeOptionalityChanged,
            edits: [
                (#"<attribute name="summary" optional="YES""#, #"<attribute name="summary" defaultValueString="""#)
            ],
            entity: "Post", property: "summary", effect: "older app versions sync records without a value"),
        Case(
            change: .attributeOptionalityChanged,
            edits: [(#"<attribute name="views""#, #"<attribute name="views" optional="YES""#)],
            entity: "Post", property: "views", effect: "fail validation in older app versions"),
        Case(
            change: .relationshipRemoved,
            edits: [
                (
                    #"<relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="posts" inverseEntity="Author"/>"#,
                    ""
                )
            ],
            entity: "Post", property: "author", effect: "older app versions keep linking objects through it"),
        Case(
            change: .relationshipRenamed,
            edits: [
                (
                    #"<relationship name="author" optional="YES""#,
                    #"<relationship name="writer" elementID="author" optional="YES""#
                )
            ],
            entity: "Post", property: "writer", effect: "CloudKit cannot rename a field"),
        Case(
            change: .relationshipDestinationChanged,
            edits: [
                (#"destinationEntity="Author" inverseName="posts""#, #"destinationEntity="Tag" inverseName="posts""#)
            ],
            entity: "Post", property: "author", effect: "older app versions read its links as Author objects"),
        Case(
            change: .relationshipCardinalityChanged,
            edits: [
                (
                    #"<relationship name="author" optional="YES" maxCount="1""#,
                    #"<relationship name="author" optional="YES" toMany="YES""#
                )
            ],
            entity: "Post", property: "author", effect: "to-one in the production schema (Blog), to-many in Blog 3"),
        Case(
            change: .relationshipInverseChanged,
            edits: [(#"destinationEntity="Tag" inverseName="posts""#, #"destinationEntity="Tag" inverseName="items""#)],
            entity: "Post", property: "tags",
            effect: "the inverse is posts in the production schema (Blog) and items in Blog 3"),
        Case(
            change: .relationshipOrderChanged,
            edits: [
                (
                    #"<relationship name="tags" optional="YES" toMany="YES""#,
                    #"<relationship name="tags" optional="YES" toMany="YES" ordered="YES""#
                )
            ],
            entity: "Post", property: "tags", effect: "unordered in the production schema (Blog), ordered in Blog 3"),
        Case(
            change: .relationshipCountChanged,
            edits: [
                (
                    #"<relationship name="tags" optional="YES" toMany="YES""#,
                    #"<relationship name="tags" optional="YES" toMany="YES" maxCount="5""#
                )
            ],
            entity: "Post", property: "tags",
            effect: "holds any number of objects in the production schema (Blog) and 0 to 5 objects in Blog 3"),
        Case(
            change: .relationshipOptionalityChanged,
            edits: [(#"<relationship name="author" optional="YES""#, #"<relationship name="author""#)],
            entity: "Post", property: "author", effect: "optional in the production schema (Blog), required in Blog 3"),
    ]

    @Test(
        "each kind of change is one error naming both versions, the entity and property, and what to do",
        arguments: cases)
    func eachChange(_ change: Case) throws {
        let found = try Self.changes(Self.edited(change.edits))
        #expect(found.count == 1, "\(found.map(\.description))")
        let error = try #require(found.first)
        #expect(error.severity == .error && error.rule == change.change.rawValue)
        #expect(error.entity == change.entity && error.property == change.property)
        #expect(error.message.contains(change.effect), "\(error.message)")
        #expect(error.message.contains("Blog 3"))
        #expect(error.message.contains("production schema (Blog)") || change.change == .entityRemoved)
        #expect(error.location?.file == "Blog.xcdatamodeld/Blog 3.xcdatamodel/contents")
        let hint = try #require(error.hint)
        #expect(hint.hasPrefix("Keep "), "\(hint)")
        #expect(
            hint.contains("add a new field") && hint.contains("version the entity")
                && hint.contains("new CloudKit container"))
    }

    @Test("a change is located at the element in the later version when it has one")
    func locations() throws {
        let retyped = try Self.changes(Self.edited([(#"attributeType="Integer 16""#, #"attributeType="Double""#)]))
        #expect(retyped.first?.location?.line == 5, "the <attribute> line")
        let removed = try Self.changes(
            Self.edited([(#"<attribute name="summary" optional="YES" attributeType="String"/>"#, "")]))
        #expect(removed.first?.location?.line == 3, "the <entity> line of Post")
    }

    @Test("only the entities CloudKit holds count: leaving a configuration used with CloudKit is a removal")
    func configurations() throws {
        let cloud =
            #"<configuration name="Cloud" usedWithCloudKit="YES"><memberEntity name="Media"/><memberEntity name="Photo"/></configuration>"#
        func version(_ body: String, _ name: String) throws -> ObjectModel {
            try XcodeModelReader().read(
                Data(ModelXML.document(body).utf8), file: "\(name).xcdatamodel/contents", name: name)
        }
        let production = try version(Self.production + cloud, "Blog")
        // Posts are not synced: changing them is no change to the CloudKit schema.
        let localChange = try version(
            Self.edited([(#"attributeType="Integer 16""#, #"attributeType="Double""#)]) + cloud, "Blog 2")
        #expect(ProductionSchemaCheck(production: production).check(localChange).isEmpty)
        let left = try version(
            Self.production
                + #"<configuration name="Cloud" usedWithCloudKit="YES"><memberEntity name="Media"/></configuration>"#,
            "Blog 3")
        let found = ProductionSchemaCheck(production: production).check(left)
        #expect(found.map(\.rule) == [ProductionSchemaCheck.Change.entityRemoved.rawValue])
        #expect(found.first?.entity == "Photo" && found.first?.message.contains("in none in Blog 3") == true)
    }

    @Test("a bundle: versions after the production one are checked, in the bundle's order; an unknown one is named")
    func bundle() throws {
        let folder = TemporaryDirectory()
        let additive = Self.edited([
            (
                #"<attribute name="views""#,
                #"<attribute name="subtitle" optional="YES" attributeType="String"/><attribute name="views""#
            )
        ])
        let breaking = Self.edited([
            (#"<attribute name="summary" optional="YES" attributeType="String"/>"#, ""),
            (#"attributeType="Integer 16""#, #"attributeType="Double""#),
            (
                #"<attribute name="label" optional="YES" attributeType="String"/>"#,
                #"<attribute name="label" optional="YES" attributeType="String"/><uniquenessConstraints><uniquenessConstraint><constraint value="label"/></uniquenessConstraint></uniquenessConstraints>"#
            ),
        ])
        let url = try ModelXML.writeBundle(
            "Blog", versions: [("Blog", Self.production), ("Blog 2", additive), ("Blog 10", breaking)],
            current: "Blog 10",
            in: folder, usedWithCloudKit: true)
        let versions = try ModelBundle(url: url).allModels()
        #expect(versions.compactMap(\.name) == ["Blog", "Blog 2", "Blog 10"])
        let found = try ProductionSchemaCheck.check(versions, productionVersion: "Blog")
        #expect(
            Set(found.compactMap(\.rule)) == [
                CloudKitRules.Rule.uniquenessConstraint.rawValue,
                ProductionSchemaCheck.Change.attributeRemoved.rawValue,
                ProductionSchemaCheck.Change.attributeTypeChanged.rawValue,
            ])
        #expect(found.allSatisfy { $0.location?.file.contains("Blog 10.xcdatamodel") == true })
        #expect(try ProductionSchemaCheck.check(versions, productionVersion: "Blog 10").isEmpty, "nothing after it")
        #expect(try ProductionSchemaCheck.split(versions, at: "Blog 2").later.compactMap(\.name) == ["Blog 10"])

        let error = try #require(throws: MoltError.self) {
            try ProductionSchemaCheck.check(versions, productionVersion: "Blog 4", file: url.path)
        }
        #expect(error.code == .fileReadNoSuchFile)
        #expect(error.message.contains("no model version \"Blog 4\""))
        #expect(error.recovery?.contains("\"Blog\", \"Blog 2\", \"Blog 10\"") == true)
    }
}
