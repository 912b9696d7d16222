import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltPolicies
import MoltStore
import MoltTestSupport

/// Stores, models and mappings for migration tests.
enum MigrationFixtures {
    static let contactsBundle = Fixtures.package("MappingModels/Examples/Contacts.xcdatamodeld")

    static func contacts(_ version: String) throws -> ObjectModel {
        try ModelBundle(url: contactsBundle).model(named: version)
    }

    static func mapping(_ file: String) throws -> MappingModel {
        try MappingReader().read(contentsOf: Fixtures.package("MappingModels/\(file)"))
    }

    static func mapping(text: String) throws -> MappingModel {
        let (model, problems) = MappingReader().read(Data(text.utf8), file: "test-mapping.xml")
        guard let model, !problems.hasErrors else { throw MoltError(.fileReadCorruptFile, "\(problems)") }
        return model
    }

    /// A store made from a seed (JSON text or a file) with `model`, at `name` in `folder`.
    @discardableResult
    static func store(_ name: String, in folder: TemporaryDirectory, model: ObjectModel, seed: Data) throws -> URL {
        let url = folder.path(name)
        _ = try ObjectStore.create(at: url, model: model) { writer in
            try ObjectsJSONImporter().importObjects(from: seed, file: "seed.json", into: writer)
        }
        return url
    }

    /// The example Blog store, copied into `folder`.
    static func blogStore(in folder: TemporaryDirectory) throws -> URL {
        try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
    }

    /// The canonical JSON of the store at `url`, opened with the version of `bundle` it matches.
    static func dump(_ url: URL, bundle: URL) throws -> String {
        try ObjectsJSONExporter().exportString(ObjectStore.open(at: url, models: .bundle(try ModelBundle(url: bundle))))
    }

    /// Every file in `folder`, sorted.
    static func files(_ folder: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }

    static func registerPolicies() {
        PolicyRegistry.register(CompiledPolicies.all)
    }

    static let contactsSeed = Data(
        """
        {"entities": {
          "Group": [
            {"@id": "friends", "name": "Friends", "members": ["ann", "ann2", "bob"]},
            {"@id": "work", "name": "Work", "members": ["ann2", "cy"]}
          ],
          "Person": [
            {"@id": "ann", "name": "Ann", "email": "ann@example.com", "phone": " +44 20 7946 0000 ", "street": "1 High St",
             "city": "London", "createdAt": "2020-01-01T00:00:00Z"},
            {"@id": "bob", "name": "Bob", "email": null, "createdAt": "2020-02-01T00:00:00Z"},
            {"@id": "ann2", "name": "Ann L.", "email": " ANN@example.com", "phone": "+44 7700 900000", "postcode": "N1",
             "createdAt": "2021-01-01T00:00:00Z"},
            {"@id": "cy", "name": "Cy", "email": "cy@example.com", "phone": "", "createdAt": "2022-01-01T00:00:00Z"}
          ]
        }}
        """.utf8)
}
