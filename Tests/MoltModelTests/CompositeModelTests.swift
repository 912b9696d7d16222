import Crypto
import Foundation
import MoltCore
import MoltModel
import MoltTestSupport
import Testing

/// Composite attributes (SwiftData's struct properties) in models: Xcode 15's XML, the leaves
/// the store keeps, version hashes, the compiled form and Core Data's rules.
@Suite("Composite attributes in models")
struct CompositeModelTests {
    /// Xcode 15's shape: `<composite>` beside the entities; Address is used by two attributes
    /// (home and work) and holds the nested Geo, which Trip.position uses too.
    static func model(_ body: String = InferenceCases.travellers()) throws -> ObjectModel {
        try InferenceCase.model(body, name: "Trips")
    }

    @Test("Xcode 15's XML reads into composites and composite attributes, and writes back the same")
    func readWriteRead() throws {
        let model = try Self.model()
        #expect(model.composites.map(\.name) == ["Address", "Geo"])
        #expect(model.composite(named: "Address")?.attributes.map(\.name) == ["street", "city", "geo"])
        let home = try #require(model.entity(named: "Traveller")?.attribute(named: "home"))
        #expect(home.type == .composite)
        #expect(home.compositeName == "Address")
        #expect(home.location?.line != nil)

        let text = try XcodeModelWriter().text(for: model)
        #expect(
            text.contains(#"<attribute name="home" optional="YES" attributeType="Composite" composite="Address"/>"#))
        #expect(text.contains(#"<composite name="Geo">"#))
        let again = try XcodeModelReader().read(Data(text.utf8), file: "written contents", name: "Trips")
        #expect(again == model)
        #expect(try again.entityVersionHashes() == model.entityVersionHashes())
        #expect(ModelChecker().check(model).isEmpty, "\(ModelChecker().check(model))")
    }

    @Test("the store keeps leaves: named by path, composites' optional and transient flags passed down")
    func leaves() throws {
        let model = try Self.model()
        let traveller = try #require(model.entity(named: "Traveller"))
        let stored = model.allAttributes(of: traveller)
        #expect(
            stored.map(\.name) == [
                "home.street", "home.city", "home.geo.latitude", "home.geo.longitude", "name", "work.street",
                "work.city", "work.geo.latitude", "work.geo.longitude",
            ])
        // city is required in Address, but home is optional: an empty home has no city.
        #expect(stored.first { $0.name == "home.city" }?.isOptional == true)
        #expect(stored.first { $0.name == "home.city" }?.ownName == "city")
        #expect(stored.first { $0.name == "home.geo.latitude" }?.defaultValue == "0.0")
        #expect(model.attribute(named: "work.geo.longitude", in: traveller)?.type == .double)
        #expect(model.attribute(named: "home", in: traveller) == nil)
        #expect(model.compositeAttribute(named: "home", in: traveller)?.compositeName == "Address")
        #expect(model.leafPath(["home", "geo", "latitude", "x"], in: traveller)! == ("home.geo.latitude", 3))
        #expect(model.leafPath(["home", "geo"], in: traveller) == nil)
        #expect(model.leafPath(["name"], in: traveller) == nil)

        let renamed = try Self.model(
            InferenceCases.travellers(
                street: #"<attribute name="road" optional="YES" attributeType="String" elementID="street"/>"#))
        let leaves = renamed.allAttributes(of: try #require(renamed.entity(named: "Traveller")))
        #expect(leaves.first { $0.name == "home.road" }?.renamingIdentifier == "home.street")
        #expect(leaves.first { $0.name == "home.city" }?.renamingIdentifier == nil)
    }

    @Test("a composite's hash is SHA-256 over its non-transient leaves' hashes in leaf-name order")
    func versionHash() throws {
        let model = try Self.model()
        let home = try #require(model.entity(named: "Traveller")?.attribute(named: "home"))
        // Leaves by their own names: city, latitude, longitude, street (geo flattened).
        let address = try #require(model.composite(named: "Address"))
        let geo = try #require(model.composite(named: "Geo"))
        let leaves = [address.attributes[1], geo.attributes[0], geo.attributes[1], address.attributes[0]]
        var input = Data()
        for leaf in leaves { input += VersionHasher.hash(of: leaf) }
        #expect(VersionHasher.hash(of: home, in: model) == Data(SHA256.hash(data: input)))

        // The composite attribute's own flags are not hashed; its leaves are.
        let hashes = try model.entityVersionHashes()
        var requiredHome = model.entities
        requiredHome[0].attributes[0].isOptional = false
        let changed = ObjectModel(entities: requiredHome, composites: model.composites)
        #expect(try changed.entityVersionHashes() == hashes)
        var composites = model.composites
        composites[0].attributes[0].name = "road"
        #expect(
            try ObjectModel(entities: model.entities, composites: composites).entityVersionHashes()["Traveller"]
                != hashes["Traveller"])
        composites = model.composites
        composites[1].attributes.append(Attribute(name: "note", type: .string, isTransient: true))
        #expect(try ObjectModel(entities: model.entities, composites: composites).entityVersionHashes() == hashes)
    }

    @Test("the compiled model archives composites with their elements and decodes to the same hashes")
    func compiledForm() throws {
        let model = try Self.model()
        let archive = CompiledModelArchiver().archive(model)
        let composites = Self.objects(ofClass: "NSCompositeAttributeDescription", in: archive)
        // home, work and position, and the nested geo of home and of work.
        #expect(composites.count == 5)
        #expect(composites.allSatisfy { $0["NSAttributeType"] == .integer(2100) && $0["NSCompositeElements"] != nil })
        #expect(CompiledModelArchiver().omissions(of: model).isEmpty)

        let decoded = try CompiledModelDecoder().decode(
            BinaryPropertyListWriter().write(archive), location: SourceLocation(file: "cache")
        ).model
        #expect(try decoded.entityVersionHashes() == model.entityVersionHashes())
        // Named after the first attribute met with those elements; Trip.position holds what the
        // nested geo holds, so it shares Geo.
        #expect(decoded.composites.map(\.name).sorted() == ["Geo", "Home"])
        let traveller = try #require(decoded.entity(named: "Traveller"))
        let original = try #require(model.entity(named: "Traveller"))
        #expect(decoded.allAttributes(of: traveller).map(\.name) == model.allAttributes(of: original).map(\.name))
        #expect(traveller.attribute(named: "work")?.compositeName == "Home")
        #expect(decoded.entity(named: "Trip")?.attribute(named: "position")?.compositeName == "Geo")
    }

    /// The archive's objects of class `name`, as field dictionaries.
    static func objects(ofClass name: String, in archive: PropertyList) -> [[String: PropertyList]] {
        let objects = archive.dictionaryValue?["$objects"]?.arrayValue ?? []
        return objects.compactMap { object -> [String: PropertyList]? in
            guard let fields = object.dictionaryValue, case .uid(let index)? = fields["$class"],
                Int(index) < objects.count,
                objects[Int(index)].dictionaryValue?["$classname"] == .string(name)
            else { return nil }
            return fields
        }
    }

    @Test(
        "Core Data's rules for composites are errors naming the composite and element",
        arguments: [
            (
                #"<attribute name="when" attributeType="Undefined"/>"#, "Address.when",
                "composite elements of type Undefined"
            ),
            (
                #"<attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>"#,
                "Address.photo", "Binary with external storage"
            ),
            (#"<attribute name="city" attributeType="String"/>"#, "Address.city", "two elements are called \"city\""),
            (
                #"<attribute name="self" optional="YES" attributeType="Composite" composite="Address"/>"#,
                "Address", "the composite contains itself"
            ),
            (
                #"<attribute name="inner" optional="YES" attributeType="Composite" composite="Geo" preserveAfterDeletion="YES"/>"#,
                "Address.inner", "a nested composite cannot preserve"
            ),
            (
                #"<attribute name="kept" optional="YES" attributeType="String" preserveAfterDeletion="YES"/>"#,
                "Traveller.home", "the element home.kept preserves its value on deletion but its composite does not"
            ),
        ])
    func rules(element: String, owner: String, message: String) throws {
        let model = try Self.model(InferenceCases.travellers(addressExtra: [element]))
        let problems = ModelChecker().check(model).errors
        #expect(
            problems.contains {
                $0.message.contains(message)
                    && [$0.entity, $0.property].compactMap { $0 }.joined(separator: ".") == owner
            },
            "\(problems)")
        #expect(problems.allSatisfy { $0.location?.line != nil })
    }

    @Test("an unknown composite, and more than 1,000 elements, are errors")
    func limits() throws {
        let unknown = try Self.model(
            InferenceCases.travellers(
                travellerExtra: [#"<attribute name="x" optional="YES" attributeType="Composite" composite="Nowhere"/>"#]
            ))
        #expect(
            ModelChecker().check(unknown).errors.map(\.message) == ["the composite \"Nowhere\" does not exist"])

        let many = (1...1_001).map { #"<attribute name="e\#($0)" optional="YES" attributeType="String"/>"# }
        let large = try Self.model(InferenceCases.travellers(addressExtra: many))
        let messages = ModelChecker().check(large).errors.map(\.message)
        // 1,001 added to Address's street, city and geo, and geo's two: for home and for work.
        #expect(
            messages
                == Array(
                    repeating: "the composite holds 1006 elements in all; Core Data supports at most 1000", count: 2))
        let fits = try Self.model(InferenceCases.travellers(addressExtra: Array(many.prefix(995))))
        #expect(ModelChecker().check(fits).errors.isEmpty)
    }
}
