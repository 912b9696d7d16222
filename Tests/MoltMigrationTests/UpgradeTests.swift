import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Counts handler calls across runs (handlers are `@Sendable`).
final class HandlerLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []
    private var failuresLeft: [String: Int] = [:]

    /// Makes the handler called `name` throw the first `times` times it is called.
    func fail(_ name: String, times: Int = 1) {
        lock.lock()
        failuresLeft[name] = times
        lock.unlock()
    }

    /// Records a call; throws when the handler is set to fail.
    func call(_ name: String) throws {
        lock.lock()
        defer { lock.unlock() }
        if let left = failuresLeft[name], left > 0 {
            failuresLeft[name] = left - 1
            entries.append("\(name) failed")
            throw MoltError(.migration, "simulated crash in \(name)")
        }
        entries.append(name)
    }

    var calls: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }
}

@Suite("Upgrades across model versions")
struct UpgradeTests {
    let folder = TemporaryDirectory()
    let order = VersionOrder.explicit(["V1", "V2", "V3", "V4"])

    func setUp() throws -> (versions: UpgradeVersions, store: URL, files: [UpgradeMappingFile], expected: String) {
        let versions = try UpgradeFixtures.versions(in: folder)
        let store = try UpgradeFixtures.store(
            "Store.sqlite", at: "V1", seed: UpgradeFixtures.seedV1, versions: versions, in: folder)
        let file = try UpgradeFixtures.file(UpgradeFixtures.twoToThree(), named: "2-3.xml")
        let reference = try UpgradeFixtures.store(
            "Expected.sqlite", at: "V4", seed: UpgradeFixtures.seedV4, versions: versions, in: folder)
        let expected = try UpgradeFixtures.dump(reference, version: "V4", versions: versions)
        try FileManager.default.removeItem(at: reference)
        return (versions, store, [file], expected)
    }

    func upgrade(
        _ setup: (versions: UpgradeVersions, store: URL, files: [UpgradeMappingFile], expected: String),
        stages: [UpgradeStage] = [], options: MigrationOptions = MigrationOptions()
    ) -> StoreUpgrade {
        StoreUpgrade(
            store: setup.store, versions: setup.versions, mappingFiles: setup.files, order: order, stages: stages,
            options: options)
    }

    func metadata(_ url: URL) throws -> StoreMetadata {
        try SQLiteStore(at: url).metadata
    }

    @Test("a V1 store goes to V4: lightweight rename, mapping file, lightweight rename; every object as expected")
    func threeVersionChain() throws {
        let setup = try setUp()
        // App metadata keys survive every step.
        let writable = try SQLiteStore(at: setup.store, readOnly: false)
        var appMetadata = writable.metadata
        appMetadata.additionalEntries["AppSetting"] = .string("kept")
        try writable.writeMetadata(appMetadata)
        writable.connection.close()
        let uuid = try metadata(setup.store).storeUUID

        let upgrade = upgrade(setup)
        let events = HandlerLog()
        upgrade.progress = { progress in
            if case .stepStarted = progress.event {
                try? events.call("step \(progress.stepNumber)/\(progress.stepCount)")
            }
        }
        let report = try upgrade.run()
        #expect(report.steps.map(\.step.kind) == [.lightweight, .heavyweight, .lightweight])
        #expect(report.steps.map(\.inPlace) == [true, false, true], "lightweight steps change the store in place")
        #expect(report.steps.map { $0.step.mappingFile?.name } == [nil, "2-3.xml", nil])
        #expect(report.storeVersion == "V1" && report.destination == "V4")
        #expect(events.calls == ["step 1/3", "step 2/3", "step 3/3"])
        // print(report): the versions, then a row per step, as `molt upgrade` prints them.
        let summary = report.summaryLines
        #expect(summary.first?.hasPrefix("Upgraded from V1 to V4 in 3 steps (") == true, "\(summary)")
        #expect(
            summary.dropFirst().first?.split(separator: " ") == [
                "STEP", "FROM", "TO", "KIND", "MAPPING", "HOW", "SECONDS",
            ])
        #expect(
            summary.contains { $0.contains("V2") && $0.contains("2-3.xml") && $0.contains("heavyweight") }, "\(summary)"
        )
        #expect("\(report)" == summary.joined(separator: "\n"))
        #expect(try UpgradeFixtures.dump(setup.store, version: "V4", versions: setup.versions) == setup.expected)
        let after = try metadata(setup.store)
        #expect(after.entityVersionHashes == setup.versions.schema(named: "V4")!.hashes)
        #expect(after.storeUUID == uuid)
        #expect(after.additionalEntries["AppSetting"] == .string("kept"))
        #expect(after.additionalEntries[StoreUpgrade.progressKey] == nil)
        #expect(try MigrationFixtures.files(folder).filter { $0.hasPrefix("Store.") } == ["Store.sqlite"])

        // Run again: nothing to do, and the store is not touched.
        let bytes = try Data(contentsOf: setup.store)
        let again = try self.upgrade(setup).run()
        #expect(again.wasUpToDate)
        #expect("\(again)" == "The store is at V4: nothing to upgrade.")
        #expect(try Data(contentsOf: setup.store) == bytes)
    }

    @Test("the plan of a store changes nothing, and says where the store is")
    func planTouchesNothing() throws {
        let setup = try setUp()
        let bytes = try Data(contentsOf: setup.store)
        let plan = try upgrade(setup).plan()
        #expect(plan.storeVersion.name == "V1" && plan.steps.count == 3)
        #expect(try Data(contentsOf: setup.store) == bytes)
        #expect(try MigrationFixtures.files(folder).filter { $0.hasPrefix("Store.") } == ["Store.sqlite"])
    }

    @Test("a crash inside stage handlers: each completed handler runs exactly once over the runs that follow")
    func resumeAfterHandlerCrashes() throws {
        let setup = try setUp()
        let log = HandlerLog()
        let first = UpgradeStage(
            from: "V1", to: "V2",
            willMigrate: { _ in try log.call("1.will") },
            didMigrate: { context in
                // Marks each note, then crashes (the first time): the marks must not be kept.
                for note in try context.store.objects(of: "Note").all() {
                    guard case .string(let body)? = note.attributes["body"] else { continue }
                    try context.writer.update(note.id, attributes: ["body": .string(body + "+")])
                }
                try log.call("1.did")
            })
        let second = UpgradeStage(
            from: "V2", to: "V3",
            willMigrate: { context in
                try context.writer.insert(
                    "Person", attributes: ["firstName": .string("Cy"), "lastName": .string("Rae")], primaryKey: 3)
                try log.call("2.will")
            },
            didMigrate: { context in
                let cy = try #require(try context.store.object(ObjectID(entity: "Person", primaryKey: 3)))
                #expect(cy.attributes["fullName"] == .string("Cy Rae"))
                try log.call("2.did")
            })
        log.fail("1.did")
        log.fail("2.will")

        // Run 1 stops in the first stage's didMigrate: the store is at V2, the marks rolled back.
        let run1 = #expect(throws: MoltError.self) { try upgrade(setup, stages: [first, second]).run() }
        #expect(run1?.message.contains("the didMigrate handler of the upgrade stage V1 → V2 failed") == true)
        #expect(try metadata(setup.store).entityVersionHashes == setup.versions.schema(named: "V2")!.hashes)
        #expect(
            try UpgradeFixtures.dump(setup.store, version: "V2", versions: setup.versions).contains("first+") == false)
        let plan = try upgrade(setup, stages: [first, second]).plan()
        #expect(plan.pendingDidMigrate?.name == "V1 → V2")

        // Run 2 finishes that handler, then stops in the second stage's willMigrate.
        #expect(throws: MoltError.self) { try upgrade(setup, stages: [first, second]).run() }
        #expect(try metadata(setup.store).entityVersionHashes == setup.versions.schema(named: "V2")!.hashes)

        // Run 3 completes.
        let report = try upgrade(setup, stages: [first, second]).run()
        #expect(report.steps.map { "\($0.step.from.name)>\($0.step.to.name)" } == ["V2>V3", "V3>V4"])
        #expect(report.steps.first?.handlersRun == [.willMigrate, .didMigrate])
        #expect(
            log.calls == ["1.will", "1.did failed", "1.did", "2.will failed", "2.will", "2.did"],
            "every handler completed exactly once")
        let seed = String(decoding: UpgradeFixtures.seedV4, as: UTF8.self)
            .replacingOccurrences(of: "\"first\"", with: "\"first+\"")
            .replacingOccurrences(of: "\"second\"", with: "\"second+\"")
            .replacingOccurrences(of: "\"loose\"", with: "\"loose+\"")
            .replacingOccurrences(
                of: "\"email\": null}", with: "\"email\": null},\n {\"@id\": \"Person/3\", \"fullName\": \"Cy Rae\"}")
        let reference = try UpgradeFixtures.store(
            "Reference.sqlite", at: "V4", seed: Data(seed.utf8), versions: setup.versions, in: folder)
        #expect(
            try UpgradeFixtures.dump(setup.store, version: "V4", versions: setup.versions)
                == (try UpgradeFixtures.dump(reference, version: "V4", versions: setup.versions)))
        #expect(try metadata(setup.store).additionalEntries[StoreUpgrade.progressKey] == nil)
    }

    @Test("a stop after willMigrate and before the step: the next run migrates without running willMigrate again")
    func resumeAfterWillMigrate() throws {
        let setup = try setUp()
        let log = HandlerLog()
        let stage = UpgradeStage(
            from: "V2", to: "V3", willMigrate: { _ in try log.call("will") }, didMigrate: { _ in try log.call("did") })
        let upgrade = upgrade(setup, stages: [stage])
        upgrade.progress = { progress in
            if case .handlerFinished(_, .willMigrate) = progress.event { upgrade.cancel() }
        }
        let error = #expect(throws: MoltError.self) { try upgrade.run() }
        #expect(error?.code == .migrationCancelled)
        #expect(try metadata(setup.store).entityVersionHashes == setup.versions.schema(named: "V2")!.hashes)
        let plan = try self.upgrade(setup, stages: [stage]).plan()
        #expect(plan.steps.first?.willMigrateAlreadyDone == true)
        #expect(plan.lines.contains { $0.contains("willMigrate already done") })

        let report = try self.upgrade(setup, stages: [stage]).run()
        #expect(report.steps.count == 2)
        #expect(log.calls == ["will", "did"])
        #expect(try UpgradeFixtures.dump(setup.store, version: "V4", versions: setup.versions) == setup.expected)
    }

    @Test("a stop between two steps: the next run continues from the version the store is at")
    func resumeBetweenSteps() throws {
        let setup = try setUp()
        let upgrade = upgrade(setup)
        upgrade.progress = { progress in
            if case .stepFinished = progress.event, progress.stepIndex == 0 { upgrade.cancel() }
        }
        let error = #expect(throws: MoltError.self) { try upgrade.run() }
        #expect(error?.code == .migrationCancelled)
        #expect(try metadata(setup.store).entityVersionHashes == setup.versions.schema(named: "V2")!.hashes)

        let report = try self.upgrade(setup).run()
        #expect(report.storeVersion == "V2")
        #expect(report.steps.map { "\($0.step.from.name)>\($0.step.to.name)" } == ["V2>V3", "V3>V4"])
        #expect(try UpgradeFixtures.dump(setup.store, version: "V4", versions: setup.versions) == setup.expected)
    }

    @Test("--backup keeps the store as it was before the upgrade, even when a handler writes first")
    func backup() throws {
        let setup = try setUp()
        let original = try UpgradeFixtures.dump(setup.store, version: "V1", versions: setup.versions)
        var options = MigrationOptions()
        options.backup = true
        let stage = UpgradeStage(
            from: "V1", to: "V2",
            willMigrate: { context in
                for person in try context.store.objects(of: "Person").all() {
                    try context.writer.update(person.id, attributes: ["mail": nil])
                }
            })
        let report = try upgrade(setup, stages: [stage], options: options).run()
        let backup = try #require(report.backup)
        #expect(
            try UpgradeFixtures.dump(URL(fileURLWithPath: backup), version: "V1", versions: setup.versions) == original)
        #expect(report.steps.count == 3)
        let migrated = try UpgradeFixtures.dump(setup.store, version: "V4", versions: setup.versions)
        #expect(!migrated.contains("ann@example.com"))
    }

    @Test("a dry run upgrades a copy and leaves the store as it was")
    func dryRun() throws {
        let setup = try setUp()
        let bytes = try Data(contentsOf: setup.store)
        var options = MigrationOptions()
        options.dryRun = true
        let report = try upgrade(setup, options: options).run()
        #expect(report.dryRun && report.steps.count == 3)
        #expect(try Data(contentsOf: setup.store) == bytes)
        #expect(
            try MigrationFixtures.files(folder).filter { $0.hasPrefix(".") || $0.hasPrefix("Store.") } == [
                "Store.sqlite"
            ])
    }
}
