import Foundation
import MoltCore
import MoltModel
import MoltTestSupport
import Testing

@Suite("Apple's real model files", .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
struct RealModelTests {
    @Test("all 117 WooCommerce model versions load, check without errors and hash")
    func wooCommerce() throws {
        let bundle = try ModelBundle(url: Fixtures.real("woocommerce/WooCommerce.xcdatamodeld"))
        #expect(bundle.versions.count == 117)
        #expect(bundle.currentVersionName == "Model 117")
        var distinct: Set<[String: Data]> = []
        for version in bundle.versions {
            let model = try bundle.model(named: version.name)
            #expect(!model.entities.isEmpty)
            let errors = ModelChecker().check(model).errors
            #expect(errors.isEmpty, "\(version.name): \(errors.map(\.description))")
            let hashes = try model.entityVersionHashes()
            #expect(hashes.count == model.entities.count)
            #expect(hashes.values.allSatisfy { $0.count == 32 })
            distinct.insert(hashes)
        }
        // Most releases changed the model; a few versions only touched what hashes ignore.
        #expect(distinct.count > 100)
    }

    @Test("the CoreStore and CoreDataStack bundles load and check cleanly")
    func otherBundles() throws {
        for path in [
            "coredatastack/Sample.xcdatamodeld", "corestore-evolution/Advanced.EvolutionDemo.xcdatamodeld",
            "corestore-evolution/Advanced.EvolutionDemo.V1.xcdatamodeld",
            "corestore-evolution/Advanced.EvolutionDemo.V2.xcdatamodeld",
        ] {
            let models = try ModelLoader().source(at: Fixtures.real(path)).candidateModels()
            for model in models {
                #expect(!ModelChecker().check(model).hasErrors, "\(path) \(model.name ?? "")")
                _ = try model.entityVersionHashes()
            }
        }
    }

    @Test("the CoreDataStack bundle's current version is TestModel 2, which adds Publisher")
    func sampleBundle() throws {
        let bundle = try ModelBundle(url: Fixtures.real("coredatastack/Sample.xcdatamodeld"))
        #expect(bundle.versions.map(\.name) == ["TestModel", "TestModel 2"])
        #expect(bundle.currentVersionName == "TestModel 2")
        let current = try bundle.currentModel()
        let publisher = try #require(current.entity(named: "Publisher"))
        #expect(publisher.relationship(named: "books")?.inverseName == "publisher")
    }
}

@Suite("Real bundle quirks", .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
struct RealBundleQuirkTests {
    @Test("a .xccurrentversion with an empty dictionary names no current version, and asking for one says so")
    func emptyCurrentVersion() throws {
        let bundle = try ModelBundle(url: Fixtures.real("corestore-evolution/Advanced.EvolutionDemo.xcdatamodeld"))
        #expect(bundle.currentVersionName == nil)
        #expect(bundle.versions.count == 2)
        let error = #expect(throws: MoltError.self) { try bundle.currentModel() }
        #expect(error?.message.contains("no .xccurrentversion") == true)
    }
}
