import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// An app's whole folder of mapping files, as Core Data finds each step's mapping by the
/// models' hashes: alternative edges (A → C beside A → B and B → C), the passes of one step,
/// two versions with the same hashes, a file whose name says another version than its hashes,
/// and a file of another model. Each starting version takes one documented path; the plan says
/// why every other file is not used.
@Suite("An upgrade through a folder with alternative mapping files")
struct UpgradeFolderTests {
    let folder = TemporaryDirectory("molt-upgrade-folder")
    static let names = ["A", "B", "C", "C2", "D", "E"]

    /// Version `name`: an Item with one more optional attribute per version (C2 has C's
    /// hashes: it only changes a version identifier).
    static func model(_ name: String) -> ObjectModel {
        let count = ["A": 1, "B": 2, "C": 3, "C2": 3, "D": 4, "E": 5][name]!
        let attributes = (0..<count).map { Attribute(name: "a\($0)", type: .string, isOptional: true) }
        return ObjectModel(
            entities: [Entity(name: "Item", attributes: attributes)],
            versionIdentifiers: name == "C2" ? ["C2"] : [], name: name)
    }

    static func versions() throws -> UpgradeVersions {
        try UpgradeVersions(models: names.map(model), currentVersionName: "E")
    }

    /// A stamped mapping file from `from` to `to` (the versions whose hashes it records) that
    /// names `declaredFrom`, setting the destination's newest attribute to `mark`.
    static func file(
        _ name: String, _ from: String, _ to: String, declaredFrom: String? = nil, mark: String? = nil,
        models: (String) -> ObjectModel = model
    ) throws -> UpgradeMappingFile {
        let source = models(from)
        let destination = models(to)
        let newest = destination.entities[0].attributes.last!.name
        let text = """
            <mapping-model format="1" source-model="\(declaredFrom ?? from)" destination-model="\(to)">
                <entity-mapping name="ItemToItem" type="transform" source="Item" destination="Item">
                    <attribute name="\(newest)" value="'\(mark ?? name)'"/>
                </entity-mapping>
            </mapping-model>
            """
        let stamped = try MappingStamper().stamp(text, file: name, source: source, destination: destination)
        return UpgradeMappingFile(name: name, mapping: try MigrationFixtures.mapping(text: stamped))
    }

    /// The folder of the shape.
    static func files() throws -> [UpgradeMappingFile] {
        let other: (String) -> ObjectModel = { name in
            ObjectModel(
                entities: [
                    Entity(
                        name: "Item", attributes: [Attribute(name: "z\(name)", type: .integer64, isOptional: true)])
                ], name: name)
        }
        return [
            try file("A-to-B.xml", "A", "B"), try file("A-to-C.xml", "A", "C"), try file("B-to-C.xml", "B", "C"),
            try file("C-to-D.xml", "C", "D"), try file("C2-to-D.xml", "C", "D", declaredFrom: "C2"),
            try file("B-to-D.xml", "C", "D", declaredFrom: "B"),
            try file("D-to-E.1.xml", "D", "E", mark: "pass 1"), try file("D-to-E.2.xml", "D", "E", mark: "pass 2"),
            try file("X1-to-X2.xml", "X1", "X2", models: other),
        ]
    }

    func plan(from: String, skipping: [String] = []) throws -> UpgradePlan {
        let all = try Self.files()
        return try UpgradePlanner(
            versions: try Self.versions(), mappingFiles: all.filter { !skipping.contains($0.name) },
            skippedMappingFiles: all.filter { skipping.contains($0.name) }, order: .byName
        ).plan(from: from)
    }

    /// Each step as "from → to: file, file" (or "inferred").
    func path(_ plan: UpgradePlan) -> [String] {
        plan.steps.map { step in
            "\(step.from.name) → \(step.to.name): "
                + (step.mappingFiles.isEmpty ? "inferred" : step.mappingFiles.map(\.name).joined(separator: ", "))
        }
    }

    func reasons(_ plan: UpgradePlan) -> [String: String] {
        Dictionary(plan.unusedMappingFiles.map { ($0.file.name, $0.reason) }, uniquingKeysWith: { a, _ in a })
    }

    @Test("from A: the file reaching furthest (A → C), then C → D, then D → E in two passes")
    func fromA() throws {
        let plan = try plan(from: "A")
        #expect(path(plan) == ["A → C: A-to-C.xml", "C → D: C-to-D.xml", "D → E: D-to-E.1.xml, D-to-E.2.xml"])
        let why = reasons(plan)
        #expect(why["A-to-B.xml"]?.contains("the path goes from A to C with A-to-C.xml") == true, "\(why)")
        #expect(why["B-to-C.xml"]?.contains("does not pass B") == true, "\(why)")
        #expect(why["C2-to-D.xml"]?.contains("C-to-D.xml connects the same versions") == true, "\(why)")
        #expect(why["B-to-D.xml"]?.contains("its hashes say it goes from C (= C2) to D, not B to D") == true, "\(why)")
        #expect(why["X1-to-X2.xml"]?.contains("made for another model") == true, "\(why)")
        #expect(plan.unusedMappingFiles.count == 5, "every file is used or explained")
    }

    @Test("from B and from C (= C2): the files from there on")
    func fromBAndC() throws {
        #expect(
            path(try plan(from: "B")) == [
                "B → C: B-to-C.xml", "C → D: C-to-D.xml", "D → E: D-to-E.1.xml, D-to-E.2.xml",
            ])
        for start in ["C", "C2"] {
            let plan = try plan(from: start)
            #expect(path(plan) == ["C → D: C-to-D.xml", "D → E: D-to-E.1.xml, D-to-E.2.xml"])
            #expect(reasons(plan)["A-to-C.xml"]?.contains("before the store's version") == true)
        }
    }

    @Test("versions.txt skipping the direct file sends stores at A through B")
    func skipped() throws {
        let plan = try plan(from: "A", skipping: ["A-to-C.xml"])
        #expect(path(plan).prefix(2) == ["A → B: A-to-B.xml", "B → C: B-to-C.xml"])
        #expect(reasons(plan)["A-to-C.xml"] == "versions.txt skips it")
    }

    @Test(
        "the folder on disk: versions.txt's skip lines, and a store at A upgraded along the path, each step's mapping run"
    )
    func onDisk() throws {
        let mappings = folder.path("Mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        for file in try Self.files() {
            try MappingWriter().write(file.mapping, to: mappings.appendingPathComponent(file.name))
        }
        try "A\nB\nC\nC2\nD\nE\n# the direct step is new\n".write(
            to: mappings.appendingPathComponent("versions.txt"), atomically: true, encoding: .utf8)
        let bundle = folder.path("Items.xcdatamodeld")
        for name in Self.names {
            try XcodeModelWriter().write(
                Self.model(name), toVersionFolder: bundle.appendingPathComponent("\(name).xcdatamodel"))
        }
        let current =
            "<plist version=\"1.0\"><dict><key>_XCCurrentVersionName</key>"
            + "<string>E.xcdatamodel</string></dict></plist>"
        try folder.write(current, to: "Items.xcdatamodeld/.xccurrentversion")
        let inputs = try UpgradeInputs(models: bundle, mappings: mappings)
        #expect(inputs.skippedMappingFiles.isEmpty)
        let store = folder.path("Items.sqlite")
        _ = try ObjectStore.create(at: store, model: Self.model("A")) { writer in
            _ = try writer.insert("Item", attributes: ["a0": .string("kept")])
        }
        let report = try StoreUpgrade(store: store, inputs: inputs).run()
        #expect(report.steps.count == 3)
        let upgraded = try ObjectStore.open(at: store, models: .model(Self.model("E")))
        // Each pass of D → E makes its own Item from the one source object (Core Data's passes).
        let items = try upgraded.objects(of: "Item").all()
        #expect(items.map { $0.attributes["a4"] } == [.string("pass 1"), .string("pass 2")])
        for item in items {
            #expect(item.attributes["a0"] == .string("kept"))
            #expect(item.attributes["a2"] == .string("A-to-C.xml"), "the direct file made C's attribute")
            #expect(item.attributes["a3"] == .string("C-to-D.xml"))
        }
        upgraded.store.connection.close()

        try "A\nB\nC\nC2\nD\nE\nskip: A-to-C.xml\n".write(
            to: mappings.appendingPathComponent("versions.txt"), atomically: true, encoding: .utf8)
        let skipping = try UpgradeInputs(models: bundle, mappings: mappings)
        #expect(skipping.skippedMappingFiles.map(\.name) == ["A-to-C.xml"])
        #expect(!skipping.mappingFiles.contains { $0.name == "A-to-C.xml" })
    }

    @Test("an upgrade given one mapping file instead of a folder says a folder is expected")
    func fileForFolder() throws {
        let file = folder.path("A-to-B.xml")
        try MappingWriter().write(try Self.file("A-to-B.xml", "A", "B").mapping, to: file)
        let error = #expect(throws: MoltError.self) {
            _ = try UpgradeInputs(models: folder.url, mappings: file)
        }
        #expect(error?.message.contains("takes the folder of an app's mapping files") == true)
    }
}
