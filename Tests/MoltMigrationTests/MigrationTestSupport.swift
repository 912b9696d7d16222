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

    /// A mapping file of the examples, by its path under `MappingModels/` (`Blog/Blog-to-Blog2.xml`).
    static func mapping(_ path: String) throws -> MappingModel {
        try MappingReader().read(contentsOf: Fixtures.package("MappingModels/\(path)"))
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
        try FailedRun.fileNames(folder)
    }

    static func registerPolicies() {
        PolicyRegistry.register(MoltPolicies.CompiledPolicies.registrations)
    }

    /// `MappingModels/Examples/Contacts.json`: people with e-mail addresses to merge and
    /// contact details to split.
    static let contactsSeed = try! Data(contentsOf: Fixtures.package("MappingModels/Examples/Contacts.json"))
}
