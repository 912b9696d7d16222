import Foundation
import MoltCore
import MoltMigration
import MoltTestSupport
import Testing

@Suite("The version order names make obvious")
struct VersionNameSequenceTests {
    @Test("Xcode's own sequence: the first without a number, then 2, 3, … read as numbers")
    func xcodeSequence() throws {
        let sequence = try #require(VersionNameSequence(["App 10", "App 3", "App", "App 2"]))
        #expect(sequence.names == ["App", "App 2", "App 3", "App 10"])
        #expect(sequence.kind == .xcode)
        #expect(sequence.description == "Xcode's sequence (App, App 2, …, App 10)")
        var generator = SplitMix(seed: 117)
        let woo = try #require(
            VersionNameSequence(["Model"] + (2...117).map { "Model \($0)" }.shuffled(using: &generator)))
        #expect(woo.names.first == "Model" && woo.names.last == "Model 117" && woo.names[1] == "Model 2")
    }

    @Test("one stem with numbers: v1 … v75, Model1 … Model3, App-v1 …, gaps allowed")
    func numberedStems() throws {
        #expect(VersionNameSequence((1...75).map { "v\($0)" }.reversed())?.names == (1...75).map { "v\($0)" })
        #expect(VersionNameSequence(["Model3", "Model1", "Model2"])?.names == ["Model1", "Model2", "Model3"])
        #expect(VersionNameSequence(["App-v2", "App-v10", "App-v1"])?.names == ["App-v1", "App-v2", "App-v10"])
        #expect(VersionNameSequence(["App-v2", "App-v10", "App-v1"])?.kind == .numbered)
        #expect(VersionNameSequence(["Model 4", "Model 2", "Model"])?.names == ["Model", "Model 2", "Model 4"])
        #expect(
            VersionNameSequence(["Model", "Model-2"])?.names == ["Model", "Model-2"], "the stem without its separator")
        #expect(VersionNameSequence(["V1"])?.names == ["V1"])
    }

    @Test("anything else is not obvious: two stems, names without numbers, a number twice, dotted versions")
    func notObvious() {
        #expect(VersionNameSequence(["Alpha", "Beta"]) == nil)
        #expect(VersionNameSequence(["V1", "V1 copy", "V2"]) == nil)
        #expect(VersionNameSequence(["App 2", "Other 3"]) == nil)
        #expect(VersionNameSequence(["v1", "v01"]) == nil)
        #expect(VersionNameSequence(["Model 1.9", "Model 2.0"]) == nil)
        #expect(VersionNameSequence(["App", "Application 2"]) == nil)
        #expect(VersionNameSequence(["Model", "Model 2", "Legacy"]) == nil)
        #expect(VersionNameSequence(["v99999999999999999999", "v1"]) == nil)
    }

    @Test("an upgrade plans by the names without versions.txt, and says where the order came from")
    func planner() throws {
        let folder = TemporaryDirectory()
        let versions = UpgradeFixtures.versions.enumerated().map {
            ($0.offset == 0 ? "App" : "App \($0.offset + 1)", $0.element.1)
        }
        let bundle = try UpgradeFixtures.bundle(in: folder, versions: versions, current: "App 4")
        let file = try UpgradeFixtures.file(
            UpgradeFixtures.twoToThree(source: "App 2", destination: "App 3"), named: "2-3.xml")
        let planner = UpgradePlanner(versions: try UpgradeVersions(contentsOf: bundle), mappingFiles: [file])
        let plan = try planner.plan(from: "App")
        #expect(
            plan.steps.map(\.description) == [
                "App → App 2: lightweight", "App 2 → App 3: heavyweight with 2-3.xml", "App 3 → App 4: lightweight",
            ])
        #expect(plan.orderSource == "from the names: Xcode's sequence (App, App 2, …, App 4)")
        #expect(
            plan.lines[0]
                == "The store is at App; 3 steps to App 4 (version order: from the names: Xcode's sequence (App, App 2, …, App 4)):"
        )
        let backwards = #expect(throws: MoltError.self) { try planner.plan(from: "App 3", to: "App 2") }
        #expect(backwards?.code == .storeNewerThanDestination)
        // Mapping files only, as before: the order is asked for.
        let strict = UpgradePlanner(
            versions: try UpgradeVersions(contentsOf: bundle), mappingFiles: [file], order: .fromMappingFiles)
        #expect(throws: MoltError.self) { try strict.plan(from: "App") }
    }
}
