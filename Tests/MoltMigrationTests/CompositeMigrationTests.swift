import Foundation
import MoltCore
import MoltMapping
@_spi(RouteSwitches) import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Stores with composite attributes (SwiftData's struct properties) through every route: in
/// place, SQL on a copy and object by object, with mapping expressions that read leaves and
/// map composites whole.
@Suite("Composite attributes across migrations")
struct CompositeMigrationTests {
    static let version1 = try! InferenceCase.model(InferenceCases.travellers(), name: "Trips")
    /// Adds a leaf (Address.zip, default "00000") and an attribute (Traveller.age, default 0).
    static let version2 = try! InferenceCase.model(
        InferenceCases.travellers(addressExtra: [InferenceCases.zip], travellerExtra: [InferenceCases.age]),
        name: "Trips 2")

    static let seed = Data(
        """
        {"entities": {
          "Traveller": [
            {"@id": "ada", "name": "Ada",
             "home": {"street": "1 Rue de Rivoli", "city": "Paris", "geo": {"latitude": 48.85, "longitude": 2.35}},
             "work": {"city": "Lyon", "geo": null}},
            {"@id": "bob", "name": "Bob", "home": null, "work": {"street": "Main St", "city": "Leeds"}}
          ],
          "Trip": [
            {"title": "Louvre", "position": {"latitude": 48.86, "longitude": 2.33}, "traveller": "ada"},
            {"title": "Nowhere", "position": null, "traveller": "bob"}
          ]
        }, "format": "molt-objects", "version": 1}
        """.utf8)

    /// The dump of `url` as JSON objects by entity, each object's members by name.
    static func objects(_ url: URL, _ model: ObjectModel) throws -> [String: [[String: Any]]] {
        let text = try ObjectsJSONExporter().exportString(ObjectStore.open(at: url, models: .model(model)))
        let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        return json?["entities"] as? [String: [[String: Any]]] ?? [:]
    }

    static func member(_ object: [String: Any], _ path: String) -> Any? {
        var current: Any? = object
        for part in path.split(separator: ".") { current = (current as? [String: Any])?[String(part)] }
        return current
    }

    /// Every leaf value of the seed, as the new version must hold it.
    static func expectSeedValues(_ url: URL, _ model: ObjectModel, zip: String?) throws {
        let all = try objects(url, model)
        let travellers = try #require(all["Traveller"])
        let ada = try #require(travellers.first { $0["name"] as? String == "Ada" })
        let bob = try #require(travellers.first { $0["name"] as? String == "Bob" })
        #expect(member(ada, "home.street") as? String == "1 Rue de Rivoli")
        #expect(member(ada, "home.city") as? String == "Paris")
        #expect(member(ada, "home.geo.latitude") as? Double == 48.85)
        #expect(member(ada, "home.geo.longitude") as? Double == 2.35)
        #expect(member(ada, "work.city") as? String == "Lyon")
        #expect(member(ada, "work.geo") is NSNull)
        #expect(member(bob, "work.street") as? String == "Main St")
        #expect(member(bob, "work.city") as? String == "Leeds")
        // Bob gave no geo: the leaves took their defaults when he was made.
        #expect(member(bob, "work.geo.latitude") as? Double == 0)
        if let zip {
            #expect(member(ada, "home.zip") as? String == zip)
            #expect(member(bob, "work.zip") as? String == zip)
            #expect(ada["age"] as? Int == 0)
        }
        let trips = try #require(all["Trip"])
        let louvre = try #require(trips.first { $0["title"] as? String == "Louvre" })
        #expect(member(louvre, "position.latitude") as? Double == 48.86)
        #expect(trips.first { $0["title"] as? String == "Nowhere" }?["position"] is NSNull)
    }

    @Test("a seed's nested values are stored leaf by leaf and dump back nested")
    func seedAndDump() throws {
        let folder = TemporaryDirectory("molt-composite")
        let url = try MigrationFixtures.store("Trips.sqlite", in: folder, model: Self.version1, seed: Self.seed)
        try Self.expectSeedValues(url, Self.version1, zip: nil)
        let columns = try ObjectStore.open(at: url, models: .model(Self.version1)).layout.entity(named: "Traveller")?
            .attributes.map(\.column)
        #expect(
            columns == [
                "ZSTREET", "ZCITY", "ZLATITUDE", "ZLONGITUDE", "ZNAME", "ZSTREET1", "ZCITY1", "ZLATITUDE1",
                "ZLONGITUDE1",
            ])
    }

    @Test(
        "a leaf and an attribute added: in place, SQL on a copy and object by object keep every value",
        arguments: ["in place", "SQL on a copy", "object by object"])
    func leafAdded(route: String) throws {
        let folder = TemporaryDirectory("molt-composite")
        let url = try MigrationFixtures.store("Trips.sqlite", in: folder, model: Self.version1, seed: Self.seed)
        let mapping = try #require(MappingInference.infer(from: Self.version1, to: Self.version2).mapping)
        let report: MigrationReport
        switch route {
        case "in place":
            report = try LightweightMigration(
                store: url, source: Self.version1, destination: Self.version2, mapping: mapping
            ).run()
            #expect(report.inPlace)
        default:
            var options = MigrationOptions()
            options.allowsSQLOnCopy = route == "SQL on a copy"
            report = try HeavyweightMigration(
                store: url, source: Self.version1, destination: Self.version2, mapping: mapping, options: options
            ).run()
            #expect((report.route == .sqlOnCopy) == (route == "SQL on a copy"))
        }
        #expect(report.discarded.isEmpty, "\(report.discarded)")
        try Self.expectSeedValues(url, Self.version2, zip: "00000")
    }

    @Test("an inferred mapping file reads a renamed element by its path, and migrates as SQL on a copy")
    func inferredRename() throws {
        let renamed = try InferenceCase.model(
            InferenceCases.travellers(
                street: #"<attribute name="road" optional="YES" attributeType="String" elementID="street"/>"#),
            name: "Trips 2")
        let mapping = try #require(MappingInference.infer(from: Self.version1, to: renamed).mapping)
        let text = MappingWriter().text(of: mapping)
        #expect(text.contains(#"<attribute name="home.road" value="$source.home.street"/>"#), "\(text)")
        let folder = TemporaryDirectory("molt-composite")
        let url = try MigrationFixtures.store("Trips.sqlite", in: folder, model: Self.version1, seed: Self.seed)
        let report = try HeavyweightMigration(
            store: url, source: Self.version1, destination: renamed, mapping: MigrationFixtures.mapping(text: text)
        ).run()
        #expect(report.route == .sqlOnCopy, "\(report.plan?.reason ?? "")")
        let ada = try #require(Self.objects(url, renamed)["Traveller"]?.first { $0["name"] as? String == "Ada" })
        #expect(Self.member(ada, "home.road") as? String == "1 Rue de Rivoli")
    }

    /// Version 2's mapping: leaves read by path, a composite mapped whole, a leaf read through
    /// a relationship, a filter on a leaf.
    static let mappingText = """
        <?xml version="1.0" encoding="UTF-8"?>
        <mapping-model format="1" source-model="Trips" destination-model="Trips 2">
            <entity-mapping name="TravellerToTraveller" type="transform" source="Traveller" destination="Traveller">
                <attribute name="home" value="$source.work"/>
                <attribute name="work.city" value="uppercase($source.home.city)"/>
                <attribute name="work.zip" value="$source.home.street"/>
            </entity-mapping>
            <entity-mapping name="TripToTrip" type="transform" source="Trip" destination="Trip">
                <filter>position.latitude &gt; 1</filter>
                <attribute name="title" value="uppercase($source.traveller.home.city)"/>
            </entity-mapping>
        </mapping-model>
        """

    @Test("mapping expressions read leaves, map a composite whole and read through relationships")
    func mappingExpressions() throws {
        let folder = TemporaryDirectory("molt-composite")
        let url = try MigrationFixtures.store("Trips.sqlite", in: folder, model: Self.version1, seed: Self.seed)
        let mapping = try MigrationFixtures.mapping(text: Self.mappingText)
        let report = try HeavyweightMigration(
            store: url, source: Self.version1, destination: Self.version2, mapping: mapping
        ).run()
        let all = try Self.objects(url, Self.version2)
        let ada = try #require(all["Traveller"]?.first { $0["name"] as? String == "Ada" })
        let bob = try #require(all["Traveller"]?.first { $0["name"] as? String == "Bob" })
        // home ← work, whole: work had no zip, which reads as nil.
        #expect(Self.member(ada, "home.city") as? String == "Lyon")
        #expect(Self.member(ada, "home.zip") is NSNull)
        #expect(Self.member(bob, "home.street") as? String == "Main St")
        // work.city ← home.city upper-cased; the rest of work inferred by name.
        #expect(Self.member(ada, "work.city") as? String == "PARIS")
        #expect(Self.member(ada, "work.zip") as? String == "1 Rue de Rivoli")
        #expect(Self.member(bob, "work.street") as? String == "Main St")
        let trips = try #require(all["Trip"])
        #expect(trips.map { $0["title"] as? String } == ["PARIS"])
        #expect(
            report.discarded.contains { $0.description.contains("Traveller.home.geo.latitude") }, "\(report.discarded)")
        #expect(!report.discarded.contains { $0.description.contains("Traveller.home.street") })
    }

    @Test("a composite read whole by a value counts its leaves as read in the report; one read by nothing does not")
    func wholeReadsInTheSurvey() throws {
        func discarded(nameValue: String) throws -> [String] {
            let folder = TemporaryDirectory("molt-composite")
            let url = try MigrationFixtures.store("Trips.sqlite", in: folder, model: Self.version1, seed: Self.seed)
            let mapping = try MigrationFixtures.mapping(
                text: """
                    <mapping-model format="1" source-model="Trips" destination-model="Trips 2">
                        <entity-mapping name="TravellerToTraveller" type="transform" source="Traveller" destination="Traveller">
                            <attribute name="home" value="$source.work"/>
                            <attribute name="name" value="\(nameValue)"/>
                        </entity-mapping>
                        <entity-mapping name="TripToTrip" type="copy" source="Trip" destination="Trip"/>
                    </mapping-model>
                    """)
            return try HeavyweightMigration(
                store: url, source: Self.version1, destination: Self.version2, mapping: mapping
            ).run().discarded.map(\.description)
        }
        let read = try discarded(nameValue: "TERNARY($source.home == nil, 'nobody', $source.name)")
        #expect(!read.contains { $0.contains("Traveller.home.") }, "\(read)")
        let unread = try discarded(nameValue: "$source.name")
        #expect(unread.contains { $0.contains("Traveller.home.street") }, "\(unread)")
    }

    @Test("a composite whose leaves are all empty is nil, as Core Data's is")
    func emptyCompositeIsNil() throws {
        let folder = TemporaryDirectory("molt-composite")
        let url = try MigrationFixtures.store("Trips.sqlite", in: folder, model: Self.version1, seed: Self.seed)
        let mapping = try MigrationFixtures.mapping(
            text: """
                <mapping-model format="1" source-model="Trips" destination-model="Trips 2">
                    <entity-mapping name="TravellerToTraveller" type="transform" source="Traveller" destination="Traveller">
                        <filter>home == nil AND work != nil</filter>
                    </entity-mapping>
                </mapping-model>
                """)
        _ = try HeavyweightMigration(
            store: url, source: Self.version1, destination: Self.version2, mapping: mapping
        ).run()
        #expect(try Self.objects(url, Self.version2)["Traveller"]?.map { $0["name"] as? String } == ["Bob"])
    }

    @Test("leaf reads from $source run as SQL on a copy and give the object-by-object store")
    func sqlRouteAgrees() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <mapping-model format="1" source-model="Trips" destination-model="Trips 2">
                <entity-mapping name="TravellerToTraveller" type="transform" source="Traveller" destination="Traveller">
                    <attribute name="work.city" value="uppercase($source.home.city)"/>
                    <attribute name="home.geo" value="$source.work.geo"/>
                </entity-mapping>
                <entity-mapping name="TripToTrip" type="copy" source="Trip" destination="Trip"/>
            </mapping-model>
            """
        let mapping = try MigrationFixtures.mapping(text: text)
        var dumps: [String] = []
        for allowsSQL in [true, false] {
            let folder = TemporaryDirectory("molt-composite")
            let url = try MigrationFixtures.store("Trips.sqlite", in: folder, model: Self.version1, seed: Self.seed)
            var options = MigrationOptions()
            options.allowsSQLOnCopy = allowsSQL
            let report = try HeavyweightMigration(
                store: url, source: Self.version1, destination: Self.version2, mapping: mapping, options: options
            ).run()
            #expect((report.route == .sqlOnCopy) == allowsSQL, "\(report.plan?.reason ?? "")")
            dumps.append(
                try ObjectsJSONExporter().exportString(ObjectStore.open(at: url, models: .model(Self.version2))))
        }
        #expect(dumps[0] == dumps[1])
        #expect(dumps[0].contains(#""city": "PARIS""#))
    }
}
