import Foundation
import MoltCore
import MoltModel
import MoltTestSupport
import Testing

/// Archives made with ``CompiledModelArchiver`` (written with BinaryPropertyListWriter), edited
/// object by object where a case needs what Core Data writes and Molt must refuse.
@Suite("Compiled models (Z_MODELCACHE archives)")
struct CompiledModelTests {
    static let location = SourceLocation(file: "test.sqlite", element: "Z_MODELCACHE")

    /// A model with every feature the archive carries, entities and properties sorted by name
    /// (as decoding gives them).
    static func fullModel() -> ObjectModel {
        ObjectModel(
            entities: [
                Entity(
                    name: "Author", className: "Author",
                    attributes: [Attribute(name: "name", type: .string)],
                    relationships: [
                        Relationship(
                            name: "books", destinationEntityName: "Book", inverseName: "author", isToMany: true,
                            deleteRule: .deny)
                    ]),
                Entity(
                    name: "Book", className: "Book", parentName: "Item", renamingIdentifier: "Volume",
                    attributes: [
                        Attribute(name: "code", type: .string, minimumValue: "1", maximumValue: "40"),
                        Attribute(
                            name: "count", type: .integer32, defaultValue: "3", minimumValue: "0", maximumValue: "100"),
                        Attribute(
                            name: "cover", type: .binary, isOptional: true, allowsExternalBinaryDataStorage: true,
                            preservesValueInHistoryOnDeletion: true),
                        Attribute(
                            name: "identifier", type: .uuid, isOptional: true,
                            defaultValue: "6F9619FF-8B86-D011-B42D-00C04FC964FF"),
                        Attribute(name: "isNew", type: .boolean, defaultValue: "YES"),
                        Attribute(name: "link", type: .uri, isOptional: true, defaultValue: "https://example.com/a"),
                        Attribute(name: "price", type: .decimal, isOptional: true, defaultValue: "-12.50"),
                        Attribute(
                            name: "rating", type: .double, defaultValue: "2.5", minimumValue: "0.0", maximumValue: "5.0"
                        ),
                        Attribute(name: "scratch", type: .string, isOptional: true, isTransient: true),
                        Attribute(
                            name: "tags", type: .transformable, isOptional: true,
                            valueTransformerName: "NSSecureUnarchiveFromData", customClassName: "[String]"),
                        Attribute(
                            name: "title", type: .string, isIndexed: true, renamingIdentifier: "name",
                            versionHashModifier: "x", userInfo: ["a": "b", "c": ""]),
                        Attribute(
                            name: "titleLength", type: .integer64, isOptional: true, isDerived: true,
                            derivationExpression: "title.length"),
                        Attribute(
                            name: "updated", type: .date, isOptional: true, isDerived: true,
                            derivationExpression: "now()"),
                    ],
                    relationships: [
                        Relationship(
                            name: "author", destinationEntityName: "Author", inverseName: "books", isOptional: true,
                            userInfo: ["why": "test"]),
                        Relationship(
                            name: "chapters", destinationEntityName: "Chapter", inverseName: "book", isToMany: true,
                            isOrdered: true, minCount: 1, maxCount: 50, deleteRule: .cascade, versionHashModifier: "m"),
                        Relationship(
                            name: "related", destinationEntityName: "Book", inverseName: "related", isToMany: true),
                    ],
                    fetchedProperties: [FetchedProperty(name: "recent", destinationEntityName: "Book")],
                    fetchIndexes: [
                        FetchIndex(
                            name: "byTitle",
                            elements: [.init(property: "title"), .init(property: "rating", isAscending: false)])
                    ]),
                Entity(
                    name: "Chapter", className: "Chapter",
                    attributes: [Attribute(name: "number", type: .integer16, isOptional: true)],
                    relationships: [
                        Relationship(
                            name: "book", destinationEntityName: "Book", inverseName: "chapters", isOptional: true,
                            deleteRule: .noAction)
                    ]),
                Entity(
                    name: "Item", isAbstract: true, versionHashModifier: "v2",
                    attributes: [Attribute(name: "created", type: .date, defaultValue: "0.0")],
                    uniquenessConstraints: [["created"]], userInfo: ["k": "v"]),
            ],
            configurations: [Configuration(name: "Cloud", entityNames: ["Author", "Book"])],
            versionIdentifiers: ["v1"])
    }

    static func decode(_ archive: PropertyList) throws -> CompiledModel {
        try CompiledModelDecoder().decode(BinaryPropertyListWriter().write(archive), location: location)
    }

    static func error(_ archive: PropertyList, limits: CompiledModelDecoder.Limits = .init()) -> MoltError? {
        do {
            _ = try CompiledModelDecoder(limits: limits).decode(
                BinaryPropertyListWriter().write(archive), location: location)
            return nil
        } catch {
            return error as? MoltError
        }
    }

    @Test("a generated archive with every feature decodes to the same model and hashes")
    func fullRoundTrip() throws {
        let model = Self.fullModel()
        let compiled = try Self.decode(CompiledModelArchiver().archive(model))
        #expect(compiled.model == model)
        #expect(try compiled.model.entityVersionHashes() == model.entityVersionHashes())
        #expect(compiled.notes.isEmpty)
    }

    @Test("the archive is shaped like Core Data's: NSKnownKeysDictionary1 entities, _P flags, NSFlagsKey")
    func archiveShape() throws {
        let data = CompiledModelArchiver().data(for: Self.fullModel())
        let archive = try KeyedArchive(data: data, name: "test")
        let root = try archive.root()
        #expect(root.className == "NSManagedObjectModel")
        #expect(try root.object("NSEntities")?.className == "NSKnownKeysDictionary1")
        let edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
        let cover = try #require(edit.property("cover"))
        let optionalBits: Int64 = 0xF3
        #expect(edit.objects[cover]["_P"] == .integer(optionalBits))
        let flagBits: Int64 = 0x14
        #expect(edit.objects[cover]["NSFlagsKey"] == .integer(flagBits))
        let chapters = try #require(edit.property("chapters"))
        let orderedBits: Int64 = 0x473
        #expect(edit.objects[chapters]["_P"] == .integer(orderedBits))
    }

    // MARK: What must be refused

    @Test("an unknown key on an attribute, a relationship, an entity or the model is an error")
    func unknownKeys() throws {
        for (target, what) in [("title", "attribute"), ("chapters", "relationship")] {
            let edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
            edit.set(try #require(edit.property(target)), "NSSomethingNew", .bool(true))
            let error = try #require(Self.error(edit.archive))
            #expect(error.code == .fileReadCorruptFile)
            #expect(error.entity == "Book")
            #expect(error.property == target)
            #expect(
                error.message.hasPrefix(
                    "the \(what) (NS\(what == "attribute" ? "Attribute" : "Relationship")Description) has a key Molt does not know: NSSomethingNew"
                ))
            #expect(error.description.hasPrefix("test.sqlite: <Z_MODELCACHE>: Book.\(target): "))
        }
        var edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
        edit.set(try #require(edit.entity("Author")), "NSEntityNewFeature", .integer(1))
        #expect(Self.error(edit.archive)?.message.contains("has a key Molt does not know: NSEntityNewFeature") == true)
        edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
        edit.set(edit.rootIndex, "NSModelThing", .integer(1))
        #expect(Self.error(edit.archive)?.message.contains("the model (NSManagedObjectModel) has a key") == true)
    }

    @Test("unknown flag bits, a read-only property, unknown types and classes are errors")
    func unsupportedFeatures() throws {
        func failure(_ property: String, _ key: String, _ value: PropertyList) throws -> MoltError {
            let edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
            edit.set(try #require(edit.property(property)), key, value)
            return try #require(Self.error(edit.archive), "\(property).\(key)")
        }
        #expect(
            try failure("title", "_P", .integer(0x10F1)).message.contains("_P = 0x10f1 have bits Molt does not know"))
        #expect(try failure("title", "NSFlagsKey", .integer(8)).message.contains("NSFlagsKey = 0x8 have bits"))
        #expect(
            try failure("title", "_P", .integer(0xF5)).message
                == "the property is read-only, which Molt's models cannot express and which changes its version hash")
        #expect(
            try failure("title", "NSAttributeType", .integer(2100)).message
                == "an attribute of type 2100 archived as NSAttributeDescription")
        #expect(
            try failure("title", "NSAttributeType", .integer(2200)).message
                == "attribute type 2200 (a codable attribute) is not supported")
        #expect(try failure("title", "NSAttributeType", .integer(750)).message == "attribute type 750 is not supported")
        #expect(
            try failure("cover", "NSIsOptional", .bool(false)).message
                == "its property flags _P = 0xf3 and NSIsOptional = NO disagree")
        #expect(try failure("chapters", "NSDeleteRule", .integer(7)).message.contains("delete rule 7"))
        #expect(try failure("chapters", "NSMaxCount", .integer(-1)).message == "its NSMaxCount -1 is not a count")

        let edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
        edit.setClass(try #require(edit.property("title")), "NSCompositeAttributeDescription")
        let composite = try #require(Self.error(edit.archive))
        #expect(composite.message == "properties of class NSCompositeAttributeDescription are not supported")
        #expect(composite.property == "title")
    }

    @Test("references that do not hold together are errors")
    func brokenReferences() throws {
        var edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
        let chapters = try #require(edit.property("chapters"))
        edit.set(chapters, "NSDestinationEntity", .uid(0))
        edit.set(chapters, "_NSDestinationEntityName", edit.string("Nowhere"))
        #expect(Self.error(edit.archive)?.message == "its destination entity Nowhere is not in the model")

        edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
        edit.set(try #require(edit.property("chapters")), "_NSDestinationEntityName", edit.string("Author"))
        #expect(
            Self.error(edit.archive)?.message == "its destination is Chapter, but _NSDestinationEntityName says Author")

        edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
        let both = try #require(edit.property("chapters"))
        edit.set(both, "NSDestinationEntity", .uid(0))
        edit.set(both, "_NSDestinationEntityName", .uid(0))
        #expect(Self.error(edit.archive)?.message == "the relationship has no destination entity")

        edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
        edit.set(try #require(edit.property("author")), "_NSInverseRelationshipName", edit.string("writer"))
        #expect(Self.error(edit.archive)?.message == "its inverse is books, but _NSInverseRelationshipName says writer")

        edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
        edit.set(
            try #require(edit.entity("Author")), "NSSuperentity", .uid(UInt64(try #require(edit.property("title")))))
        let parent = try #require(Self.error(edit.archive))
        #expect(parent.message == "its parent entity (NSSuperentity) is not an entity of the model")
        #expect(parent.code == .propertyListReadCorrupt)

        edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
        edit.set(try #require(edit.entity("Author")), "NSSuperentity", .uid(UInt64(try #require(edit.entity("Item")))))
        let listing = try #require(Self.error(edit.archive))
        #expect(listing.message == "Author has it as parent, but it does not list Author as a sub-entity")
        #expect(listing.entity == "Item")

        edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
        edit.set(try #require(edit.entity("Item")), "NSSuperentity", .uid(UInt64(try #require(edit.entity("Book")))))
        #expect(Self.error(edit.archive)?.message == "the entity inherits from itself")

        edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
        edit.set(try #require(edit.entity("Author")), "NSEntityName", edit.string("Writer"))
        #expect(Self.error(edit.archive)?.message == "the model lists the entity \"Writer\" under the name \"Author\"")

        edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
        edit.set(try #require(edit.property("title")), "NSEntity", .uid(UInt64(try #require(edit.entity("Author")))))
        #expect(Self.error(edit.archive)?.message == "the property belongs to another entity")
    }

    @Test("an inheritance cycle is an error")
    func inheritanceCycle() throws {
        let model = ObjectModel(entities: [
            Entity(name: "A", parentName: "B"), Entity(name: "B", parentName: "A"),
        ])
        let error = try #require(Self.error(CompiledModelArchiver().archive(model)))
        #expect(error.message == "the entity inherits from itself")
    }

    @Test("entity and element limits bound what an archive can make the decoder do")
    func limits() throws {
        let model = ObjectModel(
            entities: (0..<30).map { Entity(name: "E\($0)", attributes: [Attribute(name: "a", type: .string)]) })
        var limits = CompiledModelDecoder.Limits()
        limits.maximumEntities = 20
        #expect(
            Self.error(CompiledModelArchiver().archive(model), limits: limits)?.message
                == "the compiled model has more than 20 entities")
        limits = CompiledModelDecoder.Limits()
        limits.maximumElements = 50
        #expect(
            Self.error(CompiledModelArchiver().archive(model), limits: limits)?.message
                == "the compiled model has more than 50 elements")
        let chain = ObjectModel(
            entities: (0..<300).map { Entity(name: "E\($0)", parentName: $0 == 0 ? nil : "E\($0 - 1)") })
        let deep = try #require(Self.error(CompiledModelArchiver().archive(chain)))
        #expect(deep.message == "the entity has more than 100 ancestors")
    }

    @Test("archives without _P: flags from boolean keys; what is not kept is noted")
    func olderFlagsAndNotes() throws {
        let edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
        let chapters = try #require(edit.property("chapters"))
        edit.set(chapters, "_P", nil)
        edit.set(chapters, "NSIsTransient", .bool(true))
        let scratch = try #require(edit.property("scratch"))
        edit.set(scratch, "_P", .integer(0))
        edit.set(scratch, "NSValidationPredicates", edit.array([edit.string("a predicate")]))
        let title = try #require(edit.property("title"))
        edit.set(title, "NSDefaultValue", edit.object("NSColor", ["NSRGB": .data(Data([1, 2]))]))
        let compiled = try Self.decode(edit.archive)
        let book = try #require(compiled.model.entity(named: "Book"))
        let relationship = try #require(book.relationship(named: "chapters"))
        #expect(relationship.isTransient && relationship.isOrdered && relationship.isOptional)
        #expect(relationship.versionHashModifier == "m")
        #expect(book.attribute(named: "scratch")?.isTransient == true)
        #expect(book.attribute(named: "scratch")?.isOptional == true)
        #expect(book.attribute(named: "title")?.defaultValue == nil)
        #expect(
            compiled.notes == [
                "the validation predicates of Book.scratch are not kept",
                "the default value of Book.title (NSColor) is not kept",
            ])
    }

    @Test("older compound indexes, constraints given as properties, and expression kinds")
    func otherForms() throws {
        let edit = ArchiveEdit(CompiledModelArchiver().archive(Self.fullModel()))
        let book = try #require(edit.entity("Book"))
        edit.set(book, "NSFetchIndexDescriptions", nil)
        let title = try #require(edit.property("title"))
        edit.set(book, "NSCompoundIndexes", edit.array([edit.array([.uid(UInt64(title)), edit.string("code")])]))
        let item = try #require(edit.entity("Item"))
        let created = try #require(edit.property("created"))
        edit.set(item, "NSUniqueTuples", edit.array([edit.array([.uid(UInt64(created))])]))
        let updated = try #require(edit.property("updated"))
        let variable = edit.object("NSVariableExpression", ["NSVariable": edit.string("now")])
        let specifier = edit.object("NSKeyPathSpecifierExpression", ["NSKeyPath": edit.string("day")])
        edit.set(
            updated, "NSDerivationExpression",
            edit.object(
                "NSKeyPathExpression",
                [
                    "NSSelectorName": edit.string("valueForKeyPath:"), "NSOperand": variable,
                    "NSArguments": edit.array([specifier]),
                ]))
        let length = try #require(edit.property("titleLength"))
        let argument = edit.object(
            "NSKeyPathExpression",
            [
                "NSSelectorName": edit.string("valueForKeyPath:"), "NSOperand": edit.object("NSSelfExpression", [:]),
                "NSArguments": edit.array([
                    edit.object("NSKeyPathSpecifierExpression", ["NSKeyPath": edit.string("title")])
                ]),
            ])
        edit.set(
            length, "NSDerivationExpression",
            edit.object(
                "NSFunctionExpression",
                ["NSSelectorName": edit.string("lowercase:"), "NSArguments": edit.array([argument])]))
        let model = try Self.decode(edit.archive).model
        let decodedBook = try #require(model.entity(named: "Book"))
        #expect(
            decodedBook.fetchIndexes == [
                FetchIndex(name: "compoundIndex1", elements: [.init(property: "title"), .init(property: "code")])
            ])
        #expect(model.entity(named: "Item")?.uniquenessConstraints == [["created"]])
        #expect(decodedBook.attribute(named: "updated")?.derivationExpression == "$now.day")
        #expect(decodedBook.attribute(named: "titleLength")?.derivationExpression == "lowercase:(title)")
    }

    @Test("damaged archives give errors naming the model cache, never a crash")
    func mutatedArchives() throws {
        let data = CompiledModelArchiver().data(for: Self.fullModel())
        var generator = SplitMix(seed: 77)
        for _ in 0..<400 {
            var bytes = [UInt8](data)
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let position = Int(generator.next() % UInt64(bytes.count))
                bytes[position] = UInt8(truncatingIfNeeded: generator.next())
            }
            do {
                _ = try CompiledModelDecoder().decode(Data(bytes), location: Self.location)
            } catch let error as MoltError {
                #expect(error.location == Self.location)
            }
        }
    }

    // MARK: Apple's real store

    @Test(
        "the real store's embedded model decodes to its Xcode model, with the hashes Core Data stored",
        .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
    func realStore() throws {
        let archive = try Inflate().decompress(try RealModelCache.blob(), name: "the model cache")
        let compiled = try CompiledModelDecoder().decode(archive, location: Self.location)
        let hashes = try compiled.model.entityVersionHashes()
        #expect(hashes == (try RealModelCache.storeHashes()))
        #expect(hashes.mapValues(\.hexString) == VersionHashFixtureTests.storedHashes)
        let xml = try ModelLoader().load(
            at: Fixtures.real("coredatastack/Sample.xcdatamodeld/TestModel.xcdatamodel"))
        #expect(compiled.model == xml)
        #expect(compiled.notes.isEmpty)
        let author = try #require(compiled.model.entity(named: "Author"))
        #expect(author.attributes.map(\.name) == ["firstName", "lastName"])
        #expect(author.relationships.first?.isToMany == true)
        #expect(author.relationships.first?.inverseName == "authors")
    }

    @Test(
        "every real model version keeps its hashes through the archive",
        .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
    func realModelsThroughTheArchive() throws {
        let files = RealModelCache.allModelContents()
        #expect(files.count >= 117)
        for file in files {
            let model = try XcodeModelReader().read(contentsOf: file)
            let compiled = try CompiledModelDecoder().decode(
                CompiledModelArchiver().data(for: model), location: SourceLocation(file: file.path))
            #expect(try compiled.model.entityVersionHashes() == model.entityVersionHashes(), "\(file.path)")
            #expect(compiled.model.entities.count == model.entities.count)
        }
    }
}

/// A keyed archive opened for editing: its objects, found by entity or property name.
final class ArchiveEdit {
    var top: [String: PropertyList]
    var objects: [PropertyList]

    init(_ archive: PropertyList) {
        top = archive.dictionaryValue ?? [:]
        objects = top["$objects"]?.arrayValue ?? []
    }

    var archive: PropertyList {
        var result = top
        result["$objects"] = .array(objects)
        return .dictionary(result)
    }

    var rootIndex: Int {
        guard case .uid(let index)? = top["$top"]?["root"] else { return -1 }
        return Int(index)
    }

    func className(_ index: Int) -> String? {
        guard case .uid(let reference)? = objects[index]["$class"] else { return nil }
        return objects[Int(reference)]["$classname"]?.stringValue
    }

    func text(_ value: PropertyList?) -> String? {
        guard case .uid(let index)? = value else { return nil }
        return objects[Int(index)].stringValue
    }

    /// The object with `key` naming `name` (a property by NSPropertyName, an entity by NSEntityName).
    func find(_ key: String, _ name: String) -> Int? {
        objects.indices.first { index in
            text(objects[index][key]) == name && !(className(index) ?? "").contains("Index")
        }
    }

    func property(_ name: String) -> Int? { find("NSPropertyName", name) }
    func entity(_ name: String) -> Int? { find("NSEntityName", name) }

    func set(_ index: Int, _ key: String, _ value: PropertyList?) {
        var fields = objects[index].dictionaryValue ?? [:]
        fields[key] = value
        objects[index] = .dictionary(fields)
    }

    func setClass(_ index: Int, _ name: String) {
        objects.append(
            .dictionary(["$classname": .string(name), "$classes": .array([.string(name), .string("NSObject")])]))
        set(index, "$class", .uid(UInt64(objects.count - 1)))
    }

    func string(_ text: String) -> PropertyList {
        objects.append(.string(text))
        return .uid(UInt64(objects.count - 1))
    }

    func object(_ className: String, _ fields: [String: PropertyList]) -> PropertyList {
        objects.append(.dictionary(fields))
        let index = objects.count - 1
        setClass(index, className)
        return .uid(UInt64(index))
    }

    func array(_ items: [PropertyList]) -> PropertyList {
        object("NSArray", ["NS.objects": .array(items)])
    }
}
