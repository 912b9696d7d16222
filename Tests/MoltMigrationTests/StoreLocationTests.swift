import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

@Suite("The file the app uses is the file migrated")
struct StoreLocationTests {
    let folder = TemporaryDirectory()

    func migrate(_ url: URL) throws -> MigrationReport {
        try HeavyweightMigration(
            store: url, source: try Examples.model("Blog"), destination: try Examples.model("Blog 2"),
            mapping: try MigrationFixtures.mapping("Blog/Blog-to-Blog2.xml")
        ).run()
    }

    func version(_ url: URL) throws -> String? {
        try SQLiteStore(at: url).firstCompatibleModel(in: ModelBundle(url: Examples.bundle).allModels())?.name
    }

    @Test("a store behind a symbolic link is migrated where it lives; the link stays a link to it")
    func symbolicLink() throws {
        try FileManager.default.createDirectory(at: folder.path("real"), withIntermediateDirectories: true)
        let real = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"), as: "real/s.sqlite")
        let link = folder.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real/s.sqlite")
        let location = try StoreLocation(link)
        #expect(location.isLink && location.url.path == real.resolvingSymlinksInPath().path)

        _ = try migrate(link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real/s.sqlite")
        #expect(try version(real) == "Blog 2", "the file the app opens is migrated")
        #expect(try MigrationFixtures.files(folder) == ["link.sqlite", "real"], "nothing made beside the link")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("real").path) == ["s.sqlite"])
    }

    @Test("a store with several names is refused by a migration that replaces the file; in place is fine")
    func hardLinks() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        try FileManager.default.linkItem(at: url, to: folder.path("other.sqlite"))
        let before = try Data(contentsOf: url)
        let error = try #require(throws: MoltError.self) { try migrate(url) }
        #expect(
            error.message
                == "the store file has 2 names (hard links); replacing it would give the migrated store to this name only and leave the others at the old version"
        )
        #expect(try Data(contentsOf: url) == before)
        #expect(try MigrationFixtures.files(folder) == ["Blog.sqlite", "other.sqlite"])

        // In place, both names see the change: the same file is changed.
        let contacts = try MigrationFixtures.store(
            "c.sqlite", in: folder, model: try MigrationFixtures.contacts("Contacts 3"),
            seed: Data(#"{"entities": {}, "format": "molt-objects", "version": 1}"#.utf8))
        try FileManager.default.linkItem(at: contacts, to: folder.path("c2.sqlite"))
        let report = try LightweightMigration(
            store: contacts, source: try MigrationFixtures.contacts("Contacts 3"),
            destination: try MigrationFixtures.contacts("Contacts 4")
        ).run()
        #expect(report.inPlace)
        let other = try SQLiteStore(at: folder.path("c2.sqlite"))
        #expect(
            other.metadata.entityVersionHashes == (try MigrationFixtures.contacts("Contacts 4").entityVersionHashes()))
    }

    @Test("a path that is missing, a folder, or a loop of links is a clear error")
    func badPaths() throws {
        #expect(throws: MoltError.self) { try StoreLocation(folder.path("missing.sqlite")) }
        let notFile = try #require(throws: MoltError.self) { try StoreLocation(folder.url) }
        #expect(notFile.message == "the store's path is not a file")
        try FileManager.default.createSymbolicLink(atPath: folder.path("a").path, withDestinationPath: "b")
        try FileManager.default.createSymbolicLink(atPath: folder.path("b").path, withDestinationPath: "a")
        let loop = try #require(throws: MoltError.self) { try StoreLocation(folder.path("a")) }
        #expect(loop.message.contains("a loop of symbolic links"))
    }
}
