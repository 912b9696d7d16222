import Foundation
import MoltCore
import MoltModel
import MoltTestSupport
import Testing

@Suite("Reading Xcode models")
struct ModelReaderTests {
    func read(_ body: String) throws -> ObjectModel {
        try XcodeModelReader().read(Data(ModelXML.document(body).utf8), file: "contents", name: "Test")
    }

    func readError(_ body: String) -> MoltError? {
        #expect(throws: MoltError.self) { try read(body) }
    }

    @Test("the bundled example model reads with every detail")
    func blogExample() throws {
        let model = try Examples.model()
        #expect(model.name == "Blog")
        #expect(model.versionIdentifiers == ["Blog 1"])
        #expect(model.entities.map(\.name) == ["Author", "Post", "Article", "Video", "Comment", "Tag"])
        let author = try #require(model.entity(named: "Author"))
        #expect(author.className == "Author")
        #expect(author.uniquenessConstraints == [["identifier"]])
        let email = try #require(author.attribute(named: "email"))
        #expect(email.type == .string && email.isOptional && email.regularExpression == "[^@]+@[^@]+")
        let name = try #require(author.attribute(named: "name"))
        #expect(!name.isOptional && name.minimumValue == "1" && name.maximumValue == "80")
        #expect(author.attribute(named: "displayName")?.isTransient == true)
        #expect(author.attribute(named: "rating")?.defaultValue == "0.0")
        let posts = try #require(author.relationship(named: "posts"))
        #expect(posts.isToMany && posts.maxCount == 0 && posts.deleteRule == .cascade && posts.inverseName == "author")
        let post = try #require(model.entity(named: "Post"))
        #expect(post.isAbstract)
        #expect(post.attribute(named: "metadata")?.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(post.attribute(named: "metadata")?.customClassName == "[String]")
        #expect(post.relationship(named: "comments")?.isOrdered == true)
        #expect(post.relationship(named: "author").map { !$0.isToMany && $0.maxCount == 1 } == true)
        #expect(
            post.fetchIndexes == [
                FetchIndex(name: "byPublishedAt", elements: [.init(property: "publishedAt", isAscending: false)])
            ])
        #expect(model.entity(named: "Article")?.parentName == "Post")
        #expect(model.allAttributes(of: model.entity(named: "Article")!).count == 11)
        #expect(model.configurations.first?.entityNames.count == 6)
        #expect(model.attribute(named: "title", in: model.entity(named: "Video")!)?.type == .string)
    }

    @Test("every attribute type Xcode writes is read")
    func everyType() throws {
        let attributes = AttributeType.allCases.map { type in
            let composite = type == .composite ? " composite=\"C\"" : ""
            return
                "<attribute name=\"a\(type.versionHashCode)\" optional=\"YES\" transient=\"\(type.isPersistable ? "NO" : "YES")\" attributeType=\"\(type.rawValue)\"\(composite)/>"
        }.joined(separator: "\n")
        let model = try read(
            "<entity name=\"E\">\(attributes)</entity><composite name=\"C\"><attribute name=\"x\" attributeType=\"String\"/></composite>"
        )
        #expect(model.entities[0].attributes.map(\.type) == AttributeType.allCases)
    }

    @Test("renaming identifiers, modifiers, flags, user info and fetched properties are read")
    func details() throws {
        let model = try read(
            """
            <entity name="E" elementID="OldE" versionHashModifier="2">
                <attribute name="data" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES" preserveAfterDeletion="YES" elementID="blob" versionHashModifier="m" indexed="YES"/>
                <relationship name="others" optional="YES" toMany="YES" minCount="1" maxCount="5" deletionRule="Deny" destinationEntity="E" inverseName="others" inverseEntity="E" elementID="friends"/>
                <fetchedProperty name="recent" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="E" predicateString="TRUEPREDICATE"/>
                </fetchedProperty>
                <compoundIndexes><compoundIndex><index value="data"/></compoundIndex></compoundIndexes>
                <userInfo><entry key="k" value="v"/></userInfo>
            </entity>
            """)
        let entity = model.entities[0]
        #expect(entity.renamingIdentifier == "OldE" && entity.versionHashModifier == "2")
        #expect(entity.userInfo == ["k": "v"])
        let data = try #require(entity.attribute(named: "data"))
        #expect(data.allowsExternalBinaryDataStorage && data.preservesValueInHistoryOnDeletion && data.isIndexed)
        #expect(data.renamingIdentifier == "blob" && data.versionHashModifier == "m" && data.canonicalName == "blob")
        let others = try #require(entity.relationship(named: "others"))
        #expect(others.minCount == 1 && others.maxCount == 5 && others.deleteRule == .deny)
        #expect(others.renamingIdentifier == "friends")
        #expect(
            entity.fetchedProperties == [
                FetchedProperty(name: "recent", destinationEntityName: "E", predicate: "TRUEPREDICATE")
            ])
        #expect(entity.fetchIndexes.first?.elements.map(\.property) == ["data"])
    }

    @Test("an unknown attribute type names the file, line, entity, attribute and known types")
    func unknownType() {
        let error = readError(
            """
            <entity name="E">
                <attribute name="ok" attributeType="String"/>
                <attribute name="tint" attributeType="Colour"/>
            </entity>
            """)
        #expect(error?.message == "unknown attribute type \"Colour\"")
        #expect(error?.location?.file == "contents")
        #expect(error?.location?.line == 5)
        #expect(error?.location?.element == "attribute")
        #expect(error?.entity == "E" && error?.property == "tint")
        #expect(error?.recovery?.contains("Integer 64") == true)
    }

    @Test(
        "malformed model content is refused with the element named",
        arguments: [
            ("<entity><attribute name=\"a\" attributeType=\"String\"/></entity>", "name attribute is missing"),
            ("<entity name=\"E\"><attribute name=\"a\"/></entity>", "attributeType attribute is missing"),
            (
                "<entity name=\"E\"><attribute name=\"a\" optional=\"maybe\" attributeType=\"String\"/></entity>",
                "not YES or NO"
            ),
            ("<entity name=\"E\"><widget/></entity>", "unknown element <widget> in <entity>"),
            ("<gadget/>", "unknown element <gadget> in <model>"),
            ("<entity name=\"E\"><relationship name=\"r\" maxCount=\"1\"/></entity>", "no destination entity"),
            (
                "<entity name=\"E\"><relationship name=\"r\" destinationEntity=\"E\" maxCount=\"-2\"/></entity>",
                "not a count"
            ),
            (
                "<entity name=\"E\"><relationship name=\"r\" destinationEntity=\"E\" deletionRule=\"Explode\"/></entity>",
                "unknown deletion rule"
            ),
            ("<compositeAttribute name=\"c\"/>", "unknown element <compositeAttribute> in <model>"),
            (
                "<entity name=\"E\"><attribute name=\"a\" attributeType=\"Composite\"/></entity>",
                "the composite attribute names no composite"
            ),
            ("<composite name=\"C\"><entity name=\"E\"/></composite>", "unknown element <entity> in <composite>"),
        ])
    func malformed(body: String, message: String) {
        let error = readError(body)
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        #expect(error?.location?.line != nil)
    }

    @Test("a document whose root is not <model> is refused")
    func notAModel() {
        #expect(throws: MoltError.self) {
            try XcodeModelReader().read(Data("<plist/>".utf8), file: "contents")
        }
    }

    @Test("a legacy version folder (elements, no contents) says it is unsupported")
    func legacy() throws {
        let folder = TemporaryDirectory()
        try folder.write("binary", to: "Old.xcdatamodel/elements")
        try folder.write("binary", to: "Old.xcdatamodel/layout")
        let error = #expect(throws: MoltError.self) { try ModelLoader().load(at: folder.path("Old.xcdatamodel")) }
        #expect(error?.message.contains("unsupported legacy model format") == true)
        #expect(error?.location?.file.hasSuffix("Old.xcdatamodel") == true)
    }

    @Test("a bundle lists its versions, numbers read as numbers, and reads the current one")
    func bundle() throws {
        let folder = TemporaryDirectory()
        let entity = "<entity name=\"E\"><attribute name=\"a\" attributeType=\"String\"/></entity>"
        let url = try ModelXML.writeBundle(
            "App", versions: [("App 10", entity), ("App", entity), ("App 2", entity)], current: "App 2", in: folder)
        let bundle = try ModelBundle(url: url)
        #expect(bundle.versions.map(\.name) == ["App", "App 2", "App 10"])
        #expect(bundle.currentVersionName == "App 2")
        #expect(try ModelLoader().load(at: url).name == "App 2")
        #expect(try bundle.model(named: "App 10").name == "App 10")
        #expect(throws: MoltError.self) { try bundle.model(named: "App 3") }
    }

    @Test("the three path forms read the same model")
    func pathForms() throws {
        let folder = TemporaryDirectory()
        let entity = "<entity name=\"E\"><attribute name=\"a\" attributeType=\"String\"/></entity>"
        let url = try ModelXML.writeBundle("App", versions: [("App", entity)], current: "App", in: folder)
        let fromBundle = try ModelLoader().load(at: url)
        let fromVersion = try ModelLoader().load(at: url.appendingPathComponent("App.xcdatamodel"))
        let fromContents = try ModelLoader().load(at: url.appendingPathComponent("App.xcdatamodel/contents"))
        #expect(fromBundle == fromVersion && fromVersion == fromContents)
        #expect(fromContents.name == "App")
    }

    @Test("a bundle whose current version is missing, or that has none, is an error")
    func badBundles() throws {
        let folder = TemporaryDirectory()
        let entity = "<entity name=\"E\"><attribute name=\"a\" attributeType=\"String\"/></entity>"
        let missing = try ModelXML.writeBundle("A", versions: [("A", entity)], current: "A 9", in: folder)
        let error = #expect(throws: MoltError.self) { try ModelBundle(url: missing) }
        #expect(error?.message.contains("not in the bundle") == true)
        let several = try ModelXML.writeBundle(
            "B", versions: [("B", entity), ("B 2", entity)], current: nil, in: folder)
        #expect(throws: MoltError.self) { try ModelBundle(url: several).currentModel() }
        try FileManager.default.createDirectory(
            at: folder.path("Empty.xcdatamodeld"), withIntermediateDirectories: true)
        #expect(throws: MoltError.self) { try ModelBundle(url: folder.path("Empty.xcdatamodeld")) }
        #expect(throws: MoltError.self) { try ModelLoader().load(at: folder.path("Nothing.xcdatamodeld")) }
    }
}
