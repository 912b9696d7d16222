public import Foundation
public import Logging
internal import MoltCore
internal import MoltSQLite
internal import MoltStore

/// Checks that stores of earlier versions upgrade to a destination version and pass its rules:
/// what `molt verify` runs, for an app's own tests too.
///
/// Each fixture is checked on a private copy (a store fixture is only read): the copy (or a
/// store made from a seed) is upgraded to the destination with the mapping files, validated
/// against the destination model, and its `molt dump --json` compared with
/// `NAME.expected.json` when there is one.
///
/// ```swift
/// let inputs = try UpgradeInputs(models: modelsURL, mappings: mappingsURL, orderByName: false, logger: logger)
/// let verification = UpgradeVerification(inputs: inputs, destination: nil, workFolder: scratch, logger: logger)
/// let fixtures = try VerificationFixture.find(in: ["Tests/Stores"], versions: inputs.versions)
/// for result in verification.check(fixtures, jobs: 2) where !result.passed {
///     print(result.name, result.failure?.message ?? "")
/// }
/// ```
public struct UpgradeVerification: Sendable {
    public let inputs: UpgradeInputs
    /// The destination version; nil for the models' current one.
    public let destination: String?
    /// Where each check makes (and removes) its private folder.
    public let workFolder: URL
    public let logger: Logger

    public init(inputs: UpgradeInputs, destination: String?, workFolder: URL, logger: Logger) {
        self.inputs = inputs
        self.destination = destination
        self.workFolder = workFolder
        self.logger = logger
    }

    /// Checks `fixtures` on `jobs` threads, each taking the next fixture; the results in the
    /// fixtures' order. `done` is called as each check ends (from the thread that ran it).
    public func check(
        _ fixtures: [VerificationFixture], jobs: Int, done: (@Sendable () -> Void)? = nil
    ) -> [VerificationResult] {
        final class Shared: @unchecked Sendable {
            let lock = NSLock()
            var next = 0
            var results: [VerificationResult?]
            init(count: Int) { results = Array(repeating: nil, count: count) }
        }
        let shared = Shared(count: fixtures.count)
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, fixtures.count))) { _ in
            while true {
                shared.lock.lock()
                let index = shared.next
                shared.next += 1
                shared.lock.unlock()
                guard index < fixtures.count else { return }
                let result = check(fixtures[index])
                done?()
                shared.lock.lock()
                shared.results[index] = result
                shared.lock.unlock()
            }
        }
        return shared.results.compactMap { $0 }
    }

    /// Checks one fixture.
    public func check(_ fixture: VerificationFixture) -> VerificationResult {
        let started = Date()
        var result = VerificationResult(name: fixture.name)
        let folder = workFolder.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let store = folder.appendingPathComponent("Store.sqlite")
            do {
                try make(fixture, at: store, result: &result)
            } catch let error as MoltError {
                let kind: VerificationResult.FailureKind =
                    error.code == .missingSourceModel ? .unknownVersion : Self.isValidation(error) ? .fixture : .input
                result.failure = Self.failure(error, kind: kind)
                throw Stop()
            }
            try upgradeAndCheck(store, fixture: fixture, result: &result)
        } catch is Stop {
            // The failure is recorded.
        } catch let error as MoltError {
            let kind: VerificationResult.FailureKind =
                error.code == .missingSourceModel
                ? .unknownVersion : Self.isValidation(error) ? .validation : .migration
            result.failure = result.failure ?? Self.failure(error, kind: kind)
        } catch {
            result.failure = .init(kind: .migration, code: nil, message: "\(error)", difference: nil)
        }
        // Errors name the private copy: name the fixture instead.
        let copy = folder.appendingPathComponent("Store.sqlite").path
        if var failure = result.failure {
            failure.message = failure.message.replacingOccurrences(of: copy, with: fixture.url.path)
            result.failure = failure
        }
        result.seconds = Date().timeIntervalSince(started)
        return result
    }

    /// Copies the store (a consistent copy of its last commit, its log included, without
    /// writing to it), or makes one from the seed with its version's model.
    private func make(_ fixture: VerificationFixture, at store: URL, result: inout VerificationResult) throws {
        switch fixture.source {
        case .store(let url):
            // A store alone in its folder is read as it is, creating nothing beside it (a WAL
            // store opened read-only would get a `-wal` and a `-shm`, and a read-only folder
            // would refuse them); one with companions is read through them, as SQLite must.
            let companions = CompanionFiles(of: url)
            let alone = companions.wal == nil && companions.sharedMemory == nil && companions.journal == nil
            // A log copied beside the fixture from another store is refused, not applied.
            if !alone { try StoreLog.requireOwn(url) }
            let source = try SQLiteConnection(path: url.path, mode: alone ? .immutable : .readOnly, logger: logger)
            defer { source.close() }
            do {
                try source.run("VACUUM INTO ?", [.text(store.path)])
            } catch {
                throw MoltError(
                    .fileReadCorruptFile, "the store cannot be copied: \(error)",
                    location: SourceLocation(file: url.path),
                    underlying: DescribedError(error))
            }
            let support = CompanionFiles.supportFolder(of: url)
            if FileManager.default.fileExists(atPath: support.path) {
                try FileManager.default.copyItem(at: support, to: CompanionFiles.supportFolder(of: store))
            }
            try checkOwnRules(store, fixture: fixture)
        case .seed(let url, let version):
            guard let schema = inputs.versions.schema(named: version) else {
                throw MoltError(
                    .missingSourceModel, "no version is named \"\(version)\"", location: SourceLocation(file: url.path))
            }
            result.from = version
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw FileErrors.readFailed(url.path, underlying: error)
            }
            _ = try ObjectStore.create(at: store, model: schema.model(preferring: version)) { writer in
                _ = try ObjectsJSONImporter().importObjects(from: data, file: fixture.name, into: writer)
            }
        }
    }

    /// Checks a store fixture against the rules of the version it is at (a seed's are checked
    /// as it is read): a fixture that breaks them fails as the fixture's fault, not the
    /// migration's. A store at no known version is left to the upgrade to report.
    private func checkOwnRules(_ store: URL, fixture: VerificationFixture) throws {
        let sqlite = try SQLiteStore(at: store, readOnly: true, logger: logger)
        defer { sqlite.connection.close() }
        guard let schema = inputs.versions.schema(matching: sqlite.metadata.entityVersionHashes) else { return }
        let objects = try ObjectStore(store: sqlite, model: schema.model(preferring: nil))
        var validation = StoreValidation(store: objects, batchSize: 500)
        try validation.checkObjects(checkCancelled: {}, progress: { _, _ in })
        if let error = validation.error(
            recovery: "Fix the fixture: a store that breaks its own model's rules fails every migration's validation.",
            objects: "the fixture's objects (at \(schema.name), before any upgrade)")
        {
            throw error
        }
    }

    private func upgradeAndCheck(_ store: URL, fixture: VerificationFixture, result: inout VerificationResult) throws {
        let upgrade = StoreUpgrade(
            store: store, versions: inputs.versions, mappingFiles: inputs.mappingFiles,
            unreadableMappingFiles: inputs.unreadableMappingFiles, skippedMappingFiles: inputs.skippedMappingFiles,
            order: inputs.order, to: destination, context: RunContext(logger: logger))
        let report = try upgrade.run()
        result.from = report.storeVersion
        result.to = report.destination
        result.steps = report.steps.count
        guard let target = inputs.versions.schema(named: report.destination) else { return }
        let upgraded = try ObjectStore(
            store: SQLiteStore(at: store, readOnly: true, logger: logger),
            model: target.model(preferring: report.destination))
        // A store already at the destination ran no step, so nothing validated it yet.
        var validation = StoreValidation(store: upgraded, batchSize: 500)
        try validation.checkObjects(checkCancelled: {}, progress: { _, _ in })
        if let error = validation.error(recovery: "Fix the mapping files or policies that made these objects.") {
            result.failure = Self.failure(error, kind: .validation)
            return
        }
        guard let expected = fixture.expected else { return }
        result.comparedDump = true
        let wanted: String
        do {
            wanted = try String(contentsOf: expected, encoding: .utf8)
        } catch {
            throw FileErrors.readFailed(expected.path, underlying: error)
        }
        let got = try ObjectsJSONExporter().exportString(upgraded)
        if Self.trimmed(got) != Self.trimmed(wanted) {
            result.failure = .init(
                kind: .expected, code: nil,
                message: "molt dump --json of the upgraded store differs from \(expected.lastPathComponent)",
                difference: "--- \(expected.lastPathComponent)\n+++ the upgraded store\n"
                    + LineDifference(expected: wanted, actual: got).text)
        }
    }

    private static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .newlines)
    }

    /// Ends a check whose failure is already recorded.
    private struct Stop: Error {}

    private static func isValidation(_ error: MoltError) -> Bool {
        (1550...1680).contains(error.code.rawValue) || error.code == .constraintConflict
    }

    private static func failure(_ error: MoltError, kind: VerificationResult.FailureKind) -> VerificationResult.Failure
    {
        .init(kind: kind, code: error.code.rawValue, message: error.description, difference: nil)
    }
}
