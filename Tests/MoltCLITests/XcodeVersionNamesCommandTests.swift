import Foundation
import Molt
import MoltTestSupport
import Testing

/// A real app's shape: four versions named as Xcode names them, an Xcode mapping model for one
/// step, and no versions.txt.
@Suite("molt upgrade with Xcode's version names", .enabled(if: Tool.available, "the molt executable was not built"))
struct XcodeVersionNamesCommandTests {
    let folder = TemporaryDirectory()

    static let tag = """
        <entity name="Tag" representedClassName="Tag" syncable="YES">
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="posts" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Post" inverseName="tags" inverseEntity="Post"/>
        </entity>
        """
    static func post(_ properties: String, tags: Bool = true) -> String {
        """
        <entity name="Post" representedClassName="Post" syncable="YES">
            \(properties)
            \(tags ? "<relationship name=\"tags\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Tag\" inverseName=\"posts\" inverseEntity=\"Tag\"/>" : "")
        </entity>
        """
    }

    /// App → App 2 adds a summary (inferred); App 2 → App 3 adds a required slug that the
    /// Xcode mapping model computes; App 3 → App 4 drops the legacy code and the tags (inferred).
    static let versions: [(String, String)] = [
        (
            "App",
            post(
                """
                <attribute name="legacyCode" optional="YES" attributeType="String"/>
                <attribute name="title" optional="YES" attributeType="String"/>
                """) + tag
        ),
        (
            "App 2",
            post(
                """
                <attribute name="legacyCode" optional="YES" attributeType="String"/>
                <attribute name="summary" optional="YES" attributeType="String"/>
                <attribute name="title" optional="YES" attributeType="String"/>
                """) + tag
        ),
        (
            "App 3",
            post(
                """
                <attribute name="legacyCode" optional="YES" attributeType="String"/>
                <attribute name="slug" attributeType="String"/>
                <attribute name="summary" optional="YES" attributeType="String"/>
                <attribute name="title" optional="YES" attributeType="String"/>
                """) + tag
        ),
        (
            "App 4",
            post(
                """
                <attribute name="slug" attributeType="String"/>
                <attribute name="summary" optional="YES" attributeType="String"/>
                <attribute name="title" optional="YES" attributeType="String"/>
                """, tags: false)
        ),
    ]

    static let seed = """
        {"entities": {
          "Post": [
            {"@id": "Post/1", "title": "One", "legacyCode": "L1", "tags": ["Tag/1", "Tag/2"]},
            {"@id": "Post/2", "title": "Two", "tags": ["Tag/1"]}
          ],
          "Tag": [{"@id": "Tag/1", "label": "a"}, {"@id": "Tag/2", "label": "b"}]
        }, "format": "molt-objects", "version": 1}
        """

    /// The bundle, a store at `App`, and the mappings folder holding one Xcode mapping model.
    func setUp() throws -> (bundle: String, store: String, mappings: String) {
        let bundle = try ModelXML.writeBundle("App", versions: Self.versions, current: "App 4", in: folder)
        let slug = ArchiveBuilder.base64 { archive in
            archive.function(operand: nil, selector: "uppercase:", arguments: [archive.keyPath("source", "title")])
        }
        let xcode = XcodeMappingXML.document(
            entityMappings: ["z10", "z20"],
            [
                XcodeMappingXML.entityMapping(
                    "z10", number: 1, source: "Post", destination: "Post", attributes: ["z11", "z12", "z13", "z14"],
                    relationships: ["z15"]),
                XcodeMappingXML.propertyMapping("z11", name: "legacyCode", owner: "z10"),
                XcodeMappingXML.propertyMapping("z12", name: "slug", owner: "z10", expression: slug),
                XcodeMappingXML.propertyMapping("z13", name: "summary", owner: "z10"),
                XcodeMappingXML.propertyMapping("z14", name: "title", owner: "z10"),
                XcodeMappingXML.propertyMapping("z15", name: "tags", owner: "z10", relationship: true),
                XcodeMappingXML.entityMapping(
                    "z20", number: 2, source: "Tag", destination: "Tag", attributes: ["z21"], relationships: ["z22"]),
                XcodeMappingXML.propertyMapping("z21", name: "label", owner: "z20"),
                XcodeMappingXML.propertyMapping("z22", name: "posts", owner: "z20", relationship: true),
            ].joined(separator: "\n"), source: "App/App.xcdatamodeld/App 2.xcdatamodel",
            destination: "App/App.xcdatamodeld/App 3.xcdatamodel")
        try folder.write(xcode, to: "mappings/AppV2toV3.xcmappingmodel/xcmapping.xml")
        let seed = try folder.write(Self.seed, to: "seed.json")
        let store = folder.path("App.sqlite").path
        let created = try Tool.run([
            "create", store, "--model", bundle.path, "--model-version", "App", "--seed", seed.path,
        ])
        #expect(created.status == 0, "\(created.stderr)")
        return (bundle.path, store, folder.path("mappings").path)
    }

    /// Every file beside the store with its bytes.
    func snapshot() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        where name.hasPrefix("App.sqlite") {
            files[name] = try Data(contentsOf: folder.path(name))
        }
        return files
    }

    @Test(
        "the names give the order: plan, upgrade part way, refuse to go back (store untouched), list what is discarded")
    func upgradeByNames() throws {
        let (bundle, store, mappings) = try setUp()
        let plan = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", mappings, "--plan", "--verbose"])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(
            plan.stdout == """
                The store is at App; 3 steps to App 4 (version order: from the names: Xcode's sequence (App, App 2, …, App 4)):
                  1. App → App 2: lightweight
                       Route: in place (the inferred mapping changes tables SQL rewrites in one transaction)
                  2. App 2 → App 3: heavyweight with AppV2toV3.xcmappingmodel
                       Route: SQL on a copy (no entity mapping needs objects loaded: no policy, no filter, every value SQL computes)
                  3. App 3 → App 4: lightweight
                       Route: in place (the inferred mapping changes tables SQL rewrites in one transaction)
                       discards values of Post.legacyCode: no value of the mapping Post reads them
                       discards links of Post.tags: neither the mapping Post nor a mapping of the other side keeps them
                       discards Tag objects: the mapping RemoveTag removes them

                """)

        let partWay = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", mappings, "--to", "App 3"])
        #expect(partWay.status == 0, "\(partWay.stderr)")
        #expect(partWay.stdout.contains("Upgraded \(store) from App to App 3 in 2 steps"))
        #expect(partWay.stdout.contains("Discarded: nothing (every object, value and link was carried to App 3)."))

        let before = try snapshot()
        let back = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", mappings, "--to", "App 2"])
        #expect(back.status == 3)
        #expect(
            back.stderr.hasPrefix(
                "molt: error: \(store): the store is at App 3, which comes after App 2; Molt never migrates backwards"))
        #expect(try snapshot() == before, "the store and its companions are byte for byte as they were")

        let brief = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", mappings, "--plan"])
        #expect(
            brief.stdout == """
                The store is at App 3; 1 step to App 4 (version order: from the names: Xcode's sequence (App, App 2, …, App 4)):
                  1. App 3 → App 4: lightweight, in place; discards 1 value of Post.legacyCode, 3 links of Post.tags, 2 Tag objects
                  AppV2toV3.xcmappingmodel (App 2 → App 3): not used: it starts at App 2, before the store's version App 3
                --verbose adds each route's reason, each mapping's relate strategy and why each discard.

                """)
        let counted = try Tool.run([
            "upgrade", store, "--models", bundle, "--mappings", mappings, "--plan", "--verbose",
        ])
        #expect(
            counted.stdout == """
                The store is at App 3; 1 step to App 4 (version order: from the names: Xcode's sequence (App, App 2, …, App 4)):
                  1. App 3 → App 4: lightweight
                       Route: in place (the inferred mapping changes tables SQL rewrites in one transaction)
                       discards 1 value of Post.legacyCode: no value of the mapping Post reads them
                       discards 3 links of Post.tags: neither the mapping Post nor a mapping of the other side keeps them
                       discards 2 Tag objects: the mapping RemoveTag removes them
                  AppV2toV3.xcmappingmodel (App 2 → App 3): not used: it starts at App 2, before the store's version App 3

                """)
        let dryRun = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", mappings, "--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(dryRun.stdout.contains("  Would discard (not carried into App 4):\n    1 value of Post.legacyCode"))
        #expect(try snapshot() == before)

        let done = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", mappings])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(
            done.stdout.contains(
                """
                Step 1:
                  Discarded (not carried into App 4):
                    1 value of Post.legacyCode: no value of the mapping Post reads them
                    3 links of Post.tags: neither the mapping Post nor a mapping of the other side keeps them
                    2 Tag objects: the mapping RemoveTag removes them
                """))
        let dump = try Tool.run(["dump", store, "--model", bundle, "--json"])
        #expect(dump.stdout.contains("\"slug\": \"ONE\""), "the Xcode mapping's value ran")
    }
}
