import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// A model in four versions, and the files an upgrade across them uses:
///
/// - V1 → V2: `Person.mail` becomes `email` (renaming identifier): lightweight.
/// - V2 → V3: `firstName` and `lastName` become a required `fullName`: inference cannot, so a
///   mapping file (`concat`) does it.
/// - V3 → V4: `Note.body` becomes `text` (renaming identifier): lightweight.
enum UpgradeFixtures {
    static let noteV1 = """
        <entity name="Note" representedClassName="Note" syncable="YES">
            <attribute name="body" optional="YES" attributeType="String"/>
            <relationship name="person" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="notes" inverseEntity="Person"/>
        </entity>
        """
    static let noteV4 = """
        <entity name="Note" representedClassName="Note" syncable="YES">
            <attribute name="text" optional="YES" attributeType="String" elementID="body"/>
            <relationship name="person" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="notes" inverseEntity="Person"/>
        </entity>
        """
    static let notes = """
            <relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="person" inverseEntity="Note"/>
        </entity>
        """
    static let personV1 = """
        <entity name="Person" representedClassName="Person" syncable="YES">
            <attribute name="firstName" optional="YES" attributeType="String"/>
            <attribute name="lastName" optional="YES" attributeType="String"/>
            <attribute name="mail" optional="YES" attributeType="String"/>
        """ + notes
    static let personV2 = """
        <entity name="Person" representedClassName="Person" syncable="YES">
            <attribute name="firstName" optional="YES" attributeType="String"/>
            <attribute name="lastName" optional="YES" attributeType="String"/>
            <attribute name="email" optional="YES" attributeType="String" elementID="mail"/>
        """ + notes
    static let personV3 = """
        <entity name="Person" representedClassName="Person" syncable="YES">
            <attribute name="fullName" attributeType="String"/>
            <attribute name="email" optional="YES" attributeType="String" elementID="mail"/>
        """ + notes

    static let versions: [(String, String)] = [
        ("V1", personV1 + noteV1), ("V2", personV2 + noteV1), ("V3", personV3 + noteV1), ("V4", personV3 + noteV4),
    ]

    /// The bundle `Family.xcdatamodeld` (current version V4, unless `current` says otherwise).
    static func bundle(
        in folder: TemporaryDirectory, versions: [(String, String)] = versions, current: String = "V4"
    )
        throws -> URL
    {
        try ModelXML.writeBundle("Family", versions: versions, current: current, in: folder)
    }

    static func versions(in folder: TemporaryDirectory) throws -> UpgradeVersions {
        try UpgradeVersions(contentsOf: bundle(in: folder))
    }

    /// V2 → V3: the full name made of the two names.
    static func twoToThree(source: String = "V2", destination: String = "V3") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <mapping-model format="1" source-model="\(source)" destination-model="\(destination)">
            <entity-mapping name="PersonToPerson" type="transform" source="Person" destination="Person">
                <attribute name="fullName" value="concat($source.firstName, ' ', $source.lastName)"/>
            </entity-mapping>
            <entity-mapping name="NoteToNote" type="copy" source="Note" destination="Note"/>
        </mapping-model>
        """
    }

    /// V2 → V4 straight.
    static let twoToFour = """
        <?xml version="1.0" encoding="UTF-8"?>
        <mapping-model format="1" source-model="V2" destination-model="V4">
            <entity-mapping name="PersonToPerson" type="transform" source="Person" destination="Person">
                <attribute name="fullName" value="concat($source.lastName, ', ', $source.firstName)"/>
            </entity-mapping>
            <entity-mapping name="NoteToNote" type="transform" source="Note" destination="Note"/>
        </mapping-model>
        """

    /// V3 → V2: backwards.
    static let threeToTwo = """
        <?xml version="1.0" encoding="UTF-8"?>
        <mapping-model format="1" source-model="V3" destination-model="V2">
            <entity-mapping name="PersonToPerson" type="transform" source="Person" destination="Person">
                <attribute name="firstName" value="$source.fullName"/>
            </entity-mapping>
            <entity-mapping name="NoteToNote" type="copy" source="Note" destination="Note"/>
        </mapping-model>
        """

    static func model(_ version: String, in versions: UpgradeVersions) -> ObjectModel {
        versions.schema(named: version)!.model(preferring: version)
    }

    /// `text` with every entity mapping's hashes recorded for the two versions.
    static func stamped(_ text: String, from: String, to: String, versions: UpgradeVersions) throws -> String {
        try MappingStamper().stamp(
            text, file: "stamp.xml", source: model(from, in: versions), destination: model(to, in: versions))
    }

    static func file(_ text: String, named name: String) throws -> UpgradeMappingFile {
        let (mapping, problems) = MappingReader().read(Data(text.utf8), file: name)
        guard let mapping, !problems.hasErrors else { throw MoltError(.fileReadCorruptFile, "\(problems)") }
        return UpgradeMappingFile(name: name, mapping: mapping)
    }

    /// The objects of a V1 store.
    static let seedV1 = Data(
        """
        {"entities": {
          "Note": [
            {"@id": "Note/1", "body": "first", "person": "Person/1"},
            {"@id": "Note/2", "body": "second", "person": "Person/1"},
            {"@id": "Note/3", "body": "loose"}
          ],
          "Person": [
            {"@id": "Person/1", "firstName": "Ann", "lastName": "Lee", "mail": "ann@example.com"},
            {"@id": "Person/2", "firstName": "Bob", "lastName": "Stone", "mail": null}
          ]
        }}
        """.utf8)

    /// The same objects at V4.
    static let seedV4 = Data(
        """
        {"entities": {
          "Note": [
            {"@id": "Note/1", "text": "first", "person": "Person/1"},
            {"@id": "Note/2", "text": "second", "person": "Person/1"},
            {"@id": "Note/3", "text": "loose"}
          ],
          "Person": [
            {"@id": "Person/1", "fullName": "Ann Lee", "email": "ann@example.com"},
            {"@id": "Person/2", "fullName": "Bob Stone", "email": null}
          ]
        }}
        """.utf8)

    /// A store at `version` holding `seed`.
    @discardableResult
    static func store(
        _ name: String, at version: String, seed: Data, versions: UpgradeVersions, in folder: TemporaryDirectory
    ) throws -> URL {
        try MigrationFixtures.store(name, in: folder, model: model(version, in: versions), seed: seed)
    }

    /// Molt's canonical JSON of a store, read with `version`'s model.
    static func dump(_ url: URL, version: String, versions: UpgradeVersions) throws -> String {
        let store = try ObjectStore(store: SQLiteStore(at: url), model: model(version, in: versions))
        return try ObjectsJSONExporter().exportString(store)
    }
}

@Suite("Upgrade planning")
struct UpgradePlannerTests {
    let folder = TemporaryDirectory()
    let order = VersionOrder.explicit(["V1", "V2", "V3", "V4"])

    func planner(
        _ files: [UpgradeMappingFile], order: VersionOrder = .fromMappingFiles, stages: [UpgradeStage] = []
    ) throws -> UpgradePlanner {
        UpgradePlanner(
            versions: try UpgradeFixtures.versions(in: folder), mappingFiles: files, order: order, stages: stages)
    }

    func summary(_ plan: UpgradePlan) -> [String] {
        plan.steps.map { "\($0.from.name)>\($0.to.name) \($0.kind.rawValue) \($0.mappingFile?.name ?? "-")" }
    }

    func planError(_ body: () throws -> UpgradePlan) -> MoltError? {
        #expect(throws: MoltError.self) { _ = try body() }
    }

    @Test("a stamped file is matched by its hashes, whatever it is called and whatever models it names")
    func stampedFileMatchedByHashes() throws {
        let versions = try UpgradeFixtures.versions(in: folder)
        let stamped = try UpgradeFixtures.stamped(
            UpgradeFixtures.twoToThree(), from: "V2", to: "V3", versions: versions)
        let misnamed = stamped.replacingOccurrences(of: "source-model=\"V2\"", with: "source-model=\"Old\"")
            .replacingOccurrences(of: "destination-model=\"V3\"", with: "destination-model=\"New\"")
        let file = try UpgradeFixtures.file(misnamed, named: "whatever.xml")
        let plan = try planner([file]).plan(from: "V2", to: "V3")
        #expect(summary(plan) == ["V2>V3 heavyweight whatever.xml"])
        let full = try planner([file], order: order).plan(from: "V1")
        #expect(
            summary(full) == ["V1>V2 lightweight -", "V2>V3 heavyweight whatever.xml", "V3>V4 lightweight -"])
    }

    @Test("an unstamped file is matched by the version names it declares; wrong names are an error")
    func unstampedFiles() throws {
        let good = try UpgradeFixtures.file(UpgradeFixtures.twoToThree(), named: "a.xml")
        #expect(summary(try planner([good]).plan(from: "V2", to: "V3")) == ["V2>V3 heavyweight a.xml"])

        let wrong = try UpgradeFixtures.file(
            UpgradeFixtures.twoToThree(source: "Old", destination: "V3"), named: "wrong.xml")
        let error = planError { try planner([wrong]).plan(from: "V2", to: "V3") }
        #expect(
            error?.message
                == "the mapping file records no entity hashes, and its source model \"Old\" is not a version of the model (versions: V1, V2, V3, V4)"
        )
        #expect(error?.location?.file == "wrong.xml")
        #expect(error?.recovery?.contains("molt stamp-mapping") == true)
    }

    @Test("hashes on too few entities leave several versions; the declared name picks one, or it is an error")
    func partlyStamped() throws {
        let versions = try UpgradeFixtures.versions(in: folder)
        let stamped = try UpgradeFixtures.stamped(
            UpgradeFixtures.twoToThree(), from: "V2", to: "V3", versions: versions)
        // Only the Note mapping keeps its hashes: Note is the same in V1, V2 and V3.
        let lines = stamped.components(separatedBy: "\n").map { line in
            line.contains("PersonToPerson")
                ? line.replacingOccurrences(
                    of: #" (source|destination)-hash="[0-9a-f]+""#, with: "", options: .regularExpression)
                : line
        }
        let partial = lines.joined(separator: "\n")
        let named = try UpgradeFixtures.file(partial, named: "partial.xml")
        #expect(summary(try planner([named]).plan(from: "V2", to: "V3")) == ["V2>V3 heavyweight partial.xml"])

        let unnamed = try UpgradeFixtures.file(
            partial.replacingOccurrences(of: " source-model=\"V2\"", with: ""), named: "unnamed.xml")
        let error = planError { try planner([unnamed]).plan(from: "V2", to: "V3") }
        #expect(error?.message.contains("source could be any of V1, V2, V3") == true)
        #expect(error?.recovery?.contains("molt stamp-mapping") == true)

        let misnamed = try UpgradeFixtures.file(
            partial.replacingOccurrences(of: "source-model=\"V2\"", with: "source-model=\"Old\""), named: "misnamed.xml"
        )
        let wrong = planError { try planner([misnamed]).plan(from: "V2", to: "V3") }
        #expect(wrong?.message.contains("source could be any of V1, V2, V3, and none is called \"Old\"") == true)
    }

    @Test("a file whose recorded hashes no version has is an error naming the file")
    func unknownHashes() throws {
        let versions = try UpgradeFixtures.versions(in: folder)
        let stamped = try UpgradeFixtures.stamped(
            UpgradeFixtures.twoToThree(), from: "V2", to: "V3", versions: versions)
        let changed = stamped.replacingOccurrences(
            of: #"source-hash="[0-9a-f]{4}"#, with: "source-hash=\"0000", options: .regularExpression)
        let file = try UpgradeFixtures.file(changed, named: "old.xml")
        let error = planError { try planner([file]).plan(from: "V2", to: "V3") }
        #expect(error?.message.contains("no model version has the source entity hashes") == true)
        #expect(error?.location?.file == "old.xml")
    }

    @Test("a mapping file with errors against its versions stops planning, naming the file")
    func fileWithErrors() throws {
        let broken = UpgradeFixtures.twoToThree().replacingOccurrences(of: "$source.lastName", with: "$source.surname")
        let file = try UpgradeFixtures.file(broken, named: "broken.xml")
        let error = planError { try planner([file]).plan(from: "V2", to: "V3") }
        #expect(error?.code == .migration)
        #expect(error?.location?.file == "broken.xml")
        #expect(error?.message.contains("surname") == true)
    }

    @Test("a direct file is preferred to several steps, and the walk takes the file reaching furthest")
    func prefersDirectFile() throws {
        let files = [
            try UpgradeFixtures.file(UpgradeFixtures.twoToThree(), named: "2-3.xml"),
            try UpgradeFixtures.file(UpgradeFixtures.twoToFour, named: "2-4.xml"),
        ]
        #expect(summary(try planner(files, order: order).plan(from: "V2")) == ["V2>V4 heavyweight 2-4.xml"])
        #expect(
            summary(try planner(files, order: order).plan(from: "V1")) == [
                "V1>V2 lightweight -", "V2>V4 heavyweight 2-4.xml",
            ])
        // Without an order the direct file still needs none.
        #expect(summary(try planner(files).plan(from: "V2")) == ["V2>V4 heavyweight 2-4.xml"])
    }

    @Test("several files for the same pair of versions are the passes of one step, in the order given")
    func passes() throws {
        let files = [
            try UpgradeFixtures.file(UpgradeFixtures.twoToThree(), named: "one.xml"),
            try UpgradeFixtures.file(UpgradeFixtures.twoToThree(), named: "two.xml"),
        ]
        let plan = try planner(files, order: order).plan(from: "V1")
        #expect(summary(plan) == ["V1>V2 lightweight -", "V2>V3 heavyweight one.xml", "V3>V4 lightweight -"])
        #expect(plan.steps[1].mappingFiles.map(\.name) == ["one.xml", "two.xml"])
        #expect(plan.steps[1].mappings.count == 2)
        #expect(plan.steps[1].description.hasSuffix("heavyweight in 2 passes: one.xml, then two.xml"))
        let reversed = try planner(files.reversed(), order: order).plan(from: "V2")
        #expect(reversed.steps[0].mappingFiles.map(\.name) == ["two.xml", "one.xml"])
        #expect(try PassOrder.apply([["two.xml", "one.xml"]], to: files).map(\.name) == ["two.xml", "one.xml"])
        #expect(throws: MoltError.self) { try PassOrder.apply([["one.xml", "three.xml"]], to: files) }
    }

    @Test("a step that has no file and does not infer is 134140, naming the two versions and the reasons")
    func missingStep() throws {
        let error = planError { try planner([], order: order).plan(from: "V1") }
        #expect(error?.code == .missingMappingModel)
        #expect(error?.message.contains("no mapping file goes from V2 to V3") == true)
        #expect(error?.message.contains("fullName") == true)
        #expect(error?.recovery?.contains("Write a mapping file from \"V2\" to \"V3\"") == true)
        #expect(error?.details.isEmpty == false)
        // The lightweight part before the gap is split as far as inference goes.
        #expect(summary(try planner([], order: order).plan(from: "V1", to: "V2")) == ["V1>V2 lightweight -"])
    }

    @Test(
        "with no mapping files and no order, the store migrates to the current version in one lightweight step, or 134140; to another version the order is asked for"
    )
    func noMappingFiles() throws {
        #expect(summary(try planner([]).plan(from: "V3", to: "V4")) == ["V3>V4 lightweight -"])
        let error = planError { try planner([]).plan(from: "V1", to: "V4") }
        #expect(error?.code == .missingMappingModel)
        #expect(error?.message.contains("from V1 to V4") == true)
        // V2 is not the current version: it could lie behind the store, so the order is needed.
        let behind = planError { try planner([]).plan(from: "V1", to: "V2") }
        #expect(behind?.message.contains("the upgrade goes to V2, which is not the current version") == true)
        #expect(behind?.recovery?.contains("versions.txt") == true)
        #expect(summary(try planner([], order: order).plan(from: "V1", to: "V2")) == ["V1>V2 lightweight -"])
    }

    @Test("a store newer than the destination is 134530")
    func newerThanDestination() throws {
        let error = planError { try planner([], order: order).plan(from: "V3", to: "V2") }
        #expect(error?.code == .storeNewerThanDestination)
        #expect(
            error?.code.name == "MoltStoreNewerThanDestinationError", "a constant's name, as JSON's codeName gives it")
        #expect(error?.message == "the store is at V3, which comes after V2; Molt never migrates backwards")
        // The mapping files alone say it too.
        let file = try UpgradeFixtures.file(UpgradeFixtures.twoToThree(), named: "2-3.xml")
        #expect(planError { try planner([file]).plan(from: "V3", to: "V2") }?.code == .storeNewerThanDestination)
    }

    @Test("a store no version matches is 134130, naming the closest version and what differs")
    func unknownStoreModel() throws {
        var hashes = try UpgradeFixtures.versions(in: folder).schema(named: "V2")!.hashes
        hashes["Tag"] = Data(repeating: 7, count: 32)
        let error = planError { try planner([]).plan(storeHashes: hashes, storePath: "app.sqlite") }
        #expect(error?.code == .missingSourceModel)
        #expect(
            error?.message == "no model version matches the store; closest is V2: incompatible: Tag only in the store")
        #expect(error?.recovery?.contains("Molt was not given") == true)
        #expect(error?.location?.file == "app.sqlite")
    }

    @Test("when the mapping files do not order the versions, planning asks for the order; given, it plans")
    func orderNeeded() throws {
        let file = try UpgradeFixtures.file(UpgradeFixtures.twoToThree(), named: "2-3.xml")
        let error = planError { try planner([file]).plan(from: "V1") }
        #expect(error?.message.contains("the store is at V1") == true)
        #expect(error?.message.contains("2-3.xml goes from V2 to V3") == true)
        #expect(error?.recovery?.contains("versions.txt") == true)
        #expect(error?.recovery?.contains("--order-by-name") == true)

        let expected = ["V1>V2 lightweight -", "V2>V3 heavyweight 2-3.xml", "V3>V4 lightweight -"]
        #expect(summary(try planner([file], order: order).plan(from: "V1")) == expected)
        #expect(summary(try planner([file], order: .byName).plan(from: "V1")) == expected)
        // From the file's destination on, the files are behind: no order needed.
        #expect(summary(try planner([file]).plan(from: "V3")) == ["V3>V4 lightweight -"])
    }

    @Test("name order reads numbers as numbers")
    func nameOrderIsNumeric() throws {
        let versions = UpgradeFixtures.versions
        let renamed = [("M 1", versions[0].1), ("M 2", versions[1].1), ("M 10", versions[2].1)]
        let bundle = try UpgradeFixtures.bundle(in: folder, versions: renamed, current: "M 10")
        let planner = UpgradePlanner(
            versions: try UpgradeVersions(contentsOf: bundle), mappingFiles: [], order: .byName)
        let error = #expect(throws: MoltError.self) { try planner.plan(from: "M 10", to: "M 2") }
        #expect(error?.code == .storeNewerThanDestination)
        #expect(try planner.plan(from: "M 1", to: "M 2").steps.count == 1)
    }

    @Test("versions with identical hashes are one schema that keeps every name")
    func identicalVersions() throws {
        let versions = UpgradeFixtures.versions
        let withCopy = [versions[0], ("V1 copy", versions[0].1), versions[1]]
        let bundle = try UpgradeFixtures.bundle(in: folder, versions: withCopy, current: "V2")
        let upgradeVersions = try UpgradeVersions(contentsOf: bundle)
        #expect(upgradeVersions.schemas.map(\.description) == ["V1 (= V1 copy)", "V2"])
        let plan = try UpgradePlanner(versions: upgradeVersions, mappingFiles: []).plan(from: "V1 copy")
        #expect(plan.storeVersion.names == ["V1", "V1 copy"])
        #expect(summary(plan) == ["V1>V2 lightweight -"])
        #expect(
            plan.lines.first == "The store is at V1 (= V1 copy); 1 step to V2 (version order: from the mapping files):")
    }

    @Test("an explicit order must list every version, and only known ones")
    func explicitOrderChecked() throws {
        let missing = planError { try planner([], order: .explicit(["V1", "V2", "V4"])).plan(from: "V1") }
        #expect(missing?.message == "the version order does not list \"V3\"")
        let unknown = planError { try planner([], order: .explicit(["V1", "V2", "V3", "V4", "V9"])).plan(from: "V1") }
        #expect(unknown?.message.contains("\"V9\", which is not a version") == true)
        let text = try folder.write("# oldest first\nV1\n\n  V2  # the rename\nV3\nV4\n", to: "versions.txt")
        #expect(try VersionOrder.read(contentsOf: text) == order)
    }

    @Test("versions.txt: passes lines are not versions; a file of passes only leaves the order automatic")
    func passesLines() throws {
        let both = try folder.write(
            "V1\nV2\npasses: b.xml, a.xml  # users first\nV3\nV4\nPASSES: c.xml,d.xml\n", to: "both.txt")
        #expect(try VersionOrder.read(contentsOf: both) == order)
        #expect(try PassOrder.read(contentsOf: both) == [["b.xml", "a.xml"], ["c.xml", "d.xml"]])
        let passesOnly = try folder.write("passes: b.xml, a.xml\n", to: "passes.txt")
        #expect(try VersionOrder.read(contentsOf: passesOnly) == .automatic)
        let single = try folder.write("V1\npasses: a.xml\n", to: "single.txt")
        let error = try #require(throws: MoltError.self) { try PassOrder.read(contentsOf: single) }
        #expect(error.location?.line == 2)
        let twice = try folder.write("passes: a.xml, b.xml\npasses: b.xml, c.xml\n", to: "twice.txt")
        #expect(throws: MoltError.self) { try PassOrder.read(contentsOf: twice) }
    }

    @Test("with a total order, a file that goes backwards is not used, and the forecast says so")
    func backwardsFileIgnored() throws {
        let files = [
            try UpgradeFixtures.file(UpgradeFixtures.twoToThree(), named: "2-3.xml"),
            try UpgradeFixtures.file(UpgradeFixtures.threeToTwo, named: "3-2.xml"),
        ]
        let plan = try planner(files, order: order).plan(from: "V1")
        #expect(summary(plan) == ["V1>V2 lightweight -", "V2>V3 heavyweight 2-3.xml", "V3>V4 lightweight -"])
        #expect(plan.unusedMappingFiles.map(\.description) == ["3-2.xml (V3 → V2): not used: goes from V3 back to V2"])
        #expect(
            planError { try planner(files, order: order).plan(from: "V3", to: "V2") }?.code
                == .storeNewerThanDestination)
    }

    @Test("a pair of files going there and back is fine for a direct step (CoreStore's V1 ⇄ V2)")
    func cycleWithDirectFile() throws {
        let versions = try UpgradeFixtures.versions(in: folder)
        let back = try UpgradeFixtures.file(UpgradeFixtures.threeToTwo, named: "3-2.xml")
        let forth = try UpgradeFixtures.file(UpgradeFixtures.twoToThree(), named: "2-3.xml")
        let planner = UpgradePlanner(versions: versions, mappingFiles: [back, forth], order: .fromMappingFiles)
        #expect(summary(try planner.plan(from: "V2", to: "V3")) == ["V2>V3 heavyweight 2-3.xml"])
        #expect(summary(try planner.plan(from: "V3", to: "V2")) == ["V3>V2 heavyweight 3-2.xml"])
        // Reasoning across the cycle needs the order.
        let error = #expect(throws: MoltError.self) { try planner.plan(from: "V2", to: "V4") }
        #expect(error?.recovery?.contains("versions.txt") == true)
    }

    @Test("the forecast lists each step, its mapping file and stage, without a store")
    func forecast() throws {
        let file = try UpgradeFixtures.file(UpgradeFixtures.twoToThree(), named: "2-3.xml")
        let stage = UpgradeStage(from: "V2", to: "V3", willMigrate: { _ in }, didMigrate: { _ in })
        let plan = try planner([file], order: order, stages: [stage]).plan(from: "V1")
        #expect(
            plan.lines == [
                "The store is at V1; 3 steps to V4 (version order: as listed (V1, V2, V3, V4)):",
                "  1. V1 → V2: lightweight",
                "  2. V2 → V3: heavyweight with 2-3.xml; stage V2 → V3 (willMigrate, didMigrate)",
                "  3. V3 → V4: lightweight",
            ])
        let upToDate = try planner([file], order: order).plan(from: "V4")
        #expect(upToDate.isUpToDate)
        #expect(upToDate.lines == ["The store is at V4: already at V4, nothing to migrate."])
    }

    @Test("a stage is one step: a lightweight stage is never split, nor jumped over")
    func stagesAreBoundaries() throws {
        let file = try UpgradeFixtures.file(UpgradeFixtures.twoToThree(), named: "2-3.xml")
        // V1 → V4 infers nothing in one step, so a stage V1 → V3 cannot be one step.
        let wide = UpgradeStage(from: "V1", to: "V3", didMigrate: { _ in })
        let error = planError { try planner([file], order: order, stages: [wide]).plan(from: "V1") }
        #expect(error?.code == .missingMappingModel)
        #expect(error?.message.contains("the stage V1 → V3 must be one step") == true)
        // A lightweight stage in the middle stops the walk at its versions.
        let rename = UpgradeStage(from: "V3", to: "V4", didMigrate: { _ in })
        let plan = try planner([file], order: order, stages: [rename]).plan(from: "V1")
        #expect(plan.steps.map { $0.stage?.name } == [nil, nil, "V3 → V4"])
        // A store between the stage's versions cannot run it.
        let inside = planError { try planner([file], order: order, stages: [wide]).plan(from: "V2") }
        #expect(inside?.message.contains("the store is at V2, between the stage's two versions") == true)
        // Stages behind the store do not matter.
        #expect(try planner([file], order: order, stages: [wide]).plan(from: "V3").steps.count == 1)
    }

    @Test("reading a mappings folder skips XML that is not a mapping file and stops at a broken one")
    func readingAFolder() throws {
        try folder.write(UpgradeFixtures.twoToThree(), to: "maps/2-3.xml")
        try folder.write(
            "<?xml version=\"1.0\"?>\n<!-- a note -->\n<plist version=\"1.0\"><dict/></plist>", to: "maps/Info.xml")
        try folder.write("V1\nV2\nV3\nV4\n", to: "maps/versions.txt")
        let files = try UpgradeMappingFile.readFolder(folder.path("maps"))
        #expect(files.map(\.name) == ["2-3.xml"])
        try folder.write(
            "<mapping-model format=\"1\"><entity-mapping name=\"X\" type=\"copy\"/></mapping-model>", to: "maps/bad.xml"
        )
        let error = #expect(throws: MoltError.self) { try UpgradeMappingFile.readFolder(folder.path("maps")) }
        #expect(error?.location?.file.hasSuffix("maps/bad.xml") == true)
        #expect(error?.location?.line == 1)
    }
}
