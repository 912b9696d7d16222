import Foundation
import MoltCore
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// A migrated store's model cache holds the new version's model, compiled as Core Data keeps
/// it, or, when the new version has what Molt does not compile as Core Data does, nothing,
/// and the report says why.
@Suite("The model cache after a migration")
struct ModelCacheWritingTests {
    let folder = TemporaryDirectory("molt-model-cache")

    static let version1 = """
        <entity name="Note" representedClassName="Note">
            <attribute name="text" optional="YES" attributeType="String"/>
        </entity>
        """

    func store(_ name: String) throws -> (URL, ObjectModel) {
        let v1 = try InferenceCase.model(Self.version1, name: "Notes")
        let url = try MigrationFixtures.store(
            name, in: folder, model: v1,
            seed: Data(#"{"format": "molt-objects", "version": 1, "entities": {"Note": [{"text": "a"}]}}"#.utf8))
        try ModelCacheSupport.setModelCache([ModelCacheSupport.blob(for: v1)], in: url)
        return (url, v1)
    }

    @Test("deflated and decoded again, the written cache is the model with the store's hashes")
    func written() throws {
        let (url, v1) = try store("written.sqlite")
        let v2 = try InferenceCase.model(
            Self.version1.replacingOccurrences(
                of: "</entity>",
                with:
                    #"<attribute name="stars" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/></entity>"#
            ),
            name: "Notes 2")
        let report = try LightweightMigration(store: url, source: v1, destination: v2).run()
        #expect(report.contents.rewritten.map(\.what) == ["the model cache (Z_MODELCACHE)"])
        let migrated = try SQLiteStore(at: url, readOnly: true)
        defer { migrated.connection.close() }
        let blob = try #require(try migrated.modelCacheData())
        #expect(try Inflate().decompress(blob, name: "cache") == CompiledModelArchiver().data(for: v2))
        #expect(try migrated.embeddedModel()?.matchesStore == true)
    }

    @Test("a new version with a minimum value: the cache is emptied, and the report says why")
    func emptied() throws {
        let (url, v1) = try store("emptied.sqlite")
        let v2 = try InferenceCase.model(
            Self.version1.replacingOccurrences(
                of: "</entity>",
                with:
                    #"<attribute name="stars" optional="YES" attributeType="Integer 16" minValueString="0" usesScalarValueType="YES"/></entity>"#
            ),
            name: "Notes 2")
        let plan = try #require(try LightweightMigration(store: url, source: v1, destination: v2).plan())
        #expect(plan.contents.discarded.map(\.what) == ["the model cache (Z_MODELCACHE)"])
        let report = try LightweightMigration(store: url, source: v1, destination: v2).run()
        let item = try #require(report.contents.discarded.first)
        #expect(item.what == "the model cache (Z_MODELCACHE)")
        #expect(item.detail.contains("Note.stars: its minimum and maximum"), "\(item.detail)")
        let migrated = try SQLiteStore(at: url, readOnly: true)
        defer { migrated.connection.close() }
        #expect(try !migrated.hasModelCache())
    }
}
