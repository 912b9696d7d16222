import Foundation
import Molt
import MoltTestSupport
import Testing

/// A model with composite attributes (SwiftData's struct properties) through the commands a
/// developer or a support engineer runs on it.
@Suite(
    "Composite attributes on the command line",
    .enabled(if: Tool.available, "the molt executable was not built"))
struct CompositeCommandTests {
    let folder = TemporaryDirectory()

    func bundle() throws -> String {
        try ModelXML.writeBundle(
            "Trips",
            versions: [
                ("Trips", InferenceCases.travellers()),
                (
                    "Trips 2",
                    InferenceCases.travellers(
                        addressExtra: [InferenceCases.zip], travellerExtra: [InferenceCases.age])
                ),
            ], current: "Trips 2", in: folder
        ).path
    }

    static let seed = """
        {"entities": {"Traveller": [
          {"@id": "ada", "name": "Ada", "home": {"city": "Paris", "geo": {"latitude": 48.85, "longitude": 2.35}}},
          {"@id": "bob", "name": "Bob", "home": null, "work": {"street": "Main St", "city": "Leeds"}}
        ]}}
        """

    @Test("check-model, create --seed, dump, verify and migrate in place keep every nested value")
    func commands() throws {
        let bundle = try bundle()
        let check = try Tool.run(["check-model", bundle])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("0 errors, 0 warnings"), "\(check.stdout)")

        let seed = try folder.write(Self.seed, to: "seed.json")
        let store = folder.path("Trips.sqlite").path
        let created = try Tool.run([
            "create", store, "--model", bundle, "--model-version", "Trips", "--seed", seed.path,
        ])
        #expect(created.status == 0, "\(created.stderr)")
        let dump = try Tool.run(["dump", store, "--model", bundle, "--json"])
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(
            dump.stdout.contains(
                #""home": {"city": "Paris", "geo": {"latitude": 48.85, "longitude": 2.35}, "street": null}"#),
            "\(dump.stdout)")
        #expect(dump.stdout.contains(#""home": null"#), "\(dump.stdout)")

        // The store's own model, as Core Data keeps it: inspect lists it, extract-model writes it
        // back with the same hashes.
        let version1 = try ModelLoader().loadVersion(
            at: URL(fileURLWithPath: bundle).appendingPathComponent("Trips.xcdatamodel"), name: "Trips")
        try ModelCacheSupport.setModelCache(
            [ModelCacheSupport.blob(for: version1)], in: URL(fileURLWithPath: store))
        let inspect = try Tool.run(["inspect", store])
        #expect(inspect.stdout.contains("Traveller  -       3 (2 composite)"), "\(inspect.stdout)")
        let extracted = folder.path("Extracted.xcdatamodel").path
        let extract = try Tool.run(["extract-model", store, "--output", extracted])
        #expect(extract.status == 0, "\(extract.stderr)")
        #expect(
            try Tool.run(["hash", extracted]).stdout
                == Tool.run(["hash", "\(bundle)/Trips.xcdatamodel"]).stdout)

        let mappings = folder.path("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        let verify = try Tool.run(["verify", store, "--models", bundle, "--mappings", mappings.path])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")

        let migrated = try Tool.run(["migrate", store, "--from", bundle, "--to", bundle])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(migrated.stdout.contains("Discarded: nothing"), "\(migrated.stdout)")
        let after = try Tool.run(["dump", store, "--model", bundle, "--json"])
        #expect(
            after.stdout.contains(
                #""home": {"city": "Paris", "geo": {"latitude": 48.85, "longitude": 2.35}, "street": null, "zip": "00000"}"#
            ), "\(after.stdout)")
        #expect(after.stdout.contains(#""work": {"city": "Leeds", "geo""#), "\(after.stdout)")
    }

    @Test("a seed that gives a composite something else, or an element it lacks, is refused naming its line")
    func badSeeds() throws {
        let bundle = try bundle()
        for (body, message) in [
            (#"{"entities": {"Traveller": [{"name": "A","# + "\n" + #" "home": "Paris"}]}}"#, "home is a composite"),
            (
                #"{"entities": {"Traveller": [{"name": "A","# + "\n" + #" "home": {"town": "Paris"}}]}}"#,
                "the composite home has no element \"town\" (it has: street, city"
            ),
        ] {
            let seed = try folder.write(body, to: "bad.json")
            let store = folder.path("Bad-\(UUID().uuidString).sqlite").path
            let created = try Tool.run(["create", store, "--model", bundle, "--seed", seed.path])
            #expect(created.status == 65, "\(created.stderr)")
            #expect(created.stderr.contains(message), "\(created.stderr)")
            #expect(created.stderr.contains("bad.json:2"), "\(created.stderr)")
            #expect(!FileManager.default.fileExists(atPath: store))
        }
    }

    @Test("check-model names a composite element Core Data refuses, with its file and line")
    func refusedElement() throws {
        try ModelXML.writeBundle(
            "Bad",
            versions: [
                (
                    "Bad",
                    InferenceCases.travellers(addressExtra: [#"<attribute name="id" attributeType="ObjectID"/>"#])
                )
            ], current: "Bad", in: folder)
        let check = try Tool.run(["check-model", folder.path("Bad.xcdatamodeld").path])
        #expect(check.status == 1)
        #expect(
            check.stdout.contains("Bad.xcdatamodel/contents:17: <attribute>: error: Address.id: "), "\(check.stdout)")
        #expect(
            check.stdout.contains("Core Data does not support composite elements of type ObjectID"), "\(check.stdout)")
    }
}
