import Foundation
import MoltCore
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

@Suite("A store's embedded model (Z_MODELCACHE)")
struct EmbeddedModelTests {
    let folder = TemporaryDirectory()

    /// A new Blog store whose model cache holds `blobs`.
    func blogStore(cache blobs: [Data]) throws -> URL {
        _ = try TestStores.create(try TestStores.blogModel(), in: folder)
        let url = folder.path("store.sqlite")
        try ModelCacheSupport.setModelCache(blobs, in: url)
        return url
    }

    @Test("a store made by Molt has an empty cache: no embedded model")
    func noCache() throws {
        _ = try TestStores.create(try TestStores.blogModel(), in: folder)
        let store = try SQLiteStore(at: folder.path("store.sqlite"))
        #expect(try store.modelCacheData() == nil)
        #expect(try store.embeddedModel() == nil)
    }

    @Test("the embedded model decodes, matches the store, and is named as such")
    func embedded() throws {
        let blog = try TestStores.blogModel()
        let store = try SQLiteStore(at: try blogStore(cache: [ModelCacheSupport.blob(for: blog)]))
        let embedded = try #require(try store.embeddedModel())
        #expect(embedded.matchesStore)
        #expect(embedded.model.name == "embedded model")
        #expect(embedded.model.sourceFile == "\(store.url.path): <Z_MODELCACHE>")
        #expect(try embedded.model.entityVersionHashes() == blog.entityVersionHashes())
        #expect(embedded.model.entities.map(\.name) == blog.sortedEntityNames)
    }

    @Test("the embedded model stands in for a missing source model only when allowed")
    func sourceModelChoice() throws {
        let blog = try TestStores.blogModel()
        let later = try Examples.model("Blog 2")
        let store = try SQLiteStore(at: try blogStore(cache: [ModelCacheSupport.blob(for: blog)]))
        let refused = try #require(throws: MoltError.self) {
            try store.sourceModel(from: .model(later), allowsEmbeddedSourceModel: false)
        }
        #expect(refused.code == .incompatibleVersionHash)
        let choice = try store.sourceModel(from: .model(later), allowsEmbeddedSourceModel: true)
        #expect(choice.isEmbedded)
        #expect(try choice.model.entityVersionHashes() == blog.entityVersionHashes())
        let given = try store.sourceModel(from: .model(blog), allowsEmbeddedSourceModel: true)
        #expect(!given.isEmbedded)
    }

    @Test("an embedded model that does not match the store, or none, is not used")
    func mismatch() throws {
        let later = try Examples.model("Blog 2")
        let store = try SQLiteStore(at: try blogStore(cache: [ModelCacheSupport.blob(for: later)]))
        let embedded = try #require(try store.embeddedModel())
        #expect(!embedded.matchesStore)
        let error = try #require(throws: MoltError.self) {
            try store.sourceModel(from: .model(later), allowsEmbeddedSourceModel: true)
        }
        #expect(error.code == .incompatibleVersionHash)
        #expect(
            error.details.last?.hasPrefix("the store's embedded model does not match it either: incompatible") == true)

        _ = try TestStores.create(try TestStores.blogModel(), in: folder, name: "plain.sqlite")
        let plain = try SQLiteStore(at: folder.path("plain.sqlite"))
        let none = try #require(throws: MoltError.self) {
            try plain.sourceModel(from: .model(later), allowsEmbeddedSourceModel: true)
        }
        #expect(none.details.last == "the store has no embedded model (its Z_MODELCACHE is absent or empty)")
    }

    @Test("a damaged cache gives an error naming the store and Z_MODELCACHE, and the file is not changed")
    func damaged() throws {
        let url = try blogStore(cache: [Data([0xFF, 0x00, 0x13])])
        let before = try Data(contentsOf: url)
        let store = try SQLiteStore(at: url)
        let garbage = try #require(throws: MoltError.self) { try store.embeddedModel() }
        #expect(garbage.code == .propertyListReadCorrupt)
        #expect(
            garbage.description
                == "\(url.path): <Z_MODELCACHE>: the model cache is not valid DEFLATE data: invalid block type (after reading 1 of 3 bytes)"
        )
        try ModelCacheSupport.setModelCache([ModelCacheSupport.storedDeflate(Data("not a plist".utf8))], in: url)
        let notArchive = try #require(throws: MoltError.self) { try SQLiteStore(at: url).embeddedModel() }
        #expect(
            notArchive.description.hasPrefix(
                "\(url.path): <Z_MODELCACHE>: the compiled model is not a valid binary property list"))
        try ModelCacheSupport.setModelCache([Data([1]), Data([2])], in: url)
        let twice = try #require(throws: MoltError.self) { try SQLiteStore(at: url).modelCacheData() }
        #expect(twice.message == "Z_MODELCACHE holds 2 models; Core Data keeps one")
        _ = before
    }

    @Test(
        "the real store's embedded model matches its hashes, and reading it changes nothing",
        .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
    func realStore() throws {
        let url = try RealModelCache.copyStore(into: folder)
        let before = try Data(contentsOf: url)
        let store = try SQLiteStore(at: url)
        let embedded = try #require(try store.embeddedModel())
        #expect(embedded.matchesStore)
        #expect(embedded.compressedSize == 1701)
        #expect(embedded.archiveSize == 2598)
        #expect(embedded.notes.isEmpty)
        #expect(embedded.model.entities.map(\.name) == ["Author", "Book"])
        let later = try ModelLoader().load(
            at: RealModelCache.bundleURL.appendingPathComponent("TestModel 2.xcdatamodel"))
        #expect(try store.sourceModel(from: .model(later), allowsEmbeddedSourceModel: true).isEmbedded)
        store.connection.close()
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["TestModel.sqlite"])
    }
}
