import ArgumentParser
import Foundation
import Molt

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a store's metadata, entity hashes, object counts, journal mode and companion files.",
        discussion: """
            The store is opened read-only and never changed. A store with an embedded model \
            (Z_MODELCACHE, written by Core Data since about 2016) has it listed, entity by entity, \
            with whether its hashes match the store (molt extract-model writes it out). With \
            --model, also says whether the model (or which version of a .xcdatamodeld bundle) \
            matches the store; exits with 3 when none does.
            """)

    @Argument(help: "The store file (.sqlite).")
    var store: String

    @Option(help: "A model to match against: .xcdatamodeld bundle, .xcdatamodel version or contents file.")
    var model: String?

    @Flag(help: "Print the report as JSON.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let logger = global.bootstrap()
        var incompatible = false
        try global.run(json: json) {
            let url = URL(fileURLWithPath: store)
            // One read transaction: everything reported is one committed version of the store.
            let opened = try SQLiteStore(at: url, readOnly: true, snapshot: true, logger: logger)
            let running = MigrationLock.running(of: url)
            if let running { Output.note("note: \(running); this is the store as it was last committed") }
            var report = try StoreReport(store: opened)
            // A running migration's files beside the store are its work, not an interrupted one's.
            if running != nil { report.interruptedMigration = [] }
            if let model {
                report.model = try ModelMatchReport(
                    store: opened, source: try ModelArguments.source(model), path: model)
                incompatible = report.model?.matchingVersion == nil
            }
            if json {
                try Output.json(report)
            } else {
                report.printText()
            }
        }
        if incompatible { throw ExitCode(ExitCodes.incompatibleStore) }
    }
}

/// What `molt inspect` reports, as text or JSON.
struct StoreReport: Encodable {
    struct EntityRow: Encodable {
        var name: String
        var number: Int?
        var parent: String?
        var objects: Int?
        var versionHash: String?
    }

    struct Companion: Encodable {
        var kind: String
        var path: String
        var size: Int64
    }

    var path: String
    var fileSize: Int64
    var pageSize: Int
    var pageCount: Int
    var autoVacuum: String
    var journalMode: String
    var companions: [Companion]
    var storeUUID: String
    var storeType: String
    var frameworkVersion: Int64?
    var versionHashesVersion: Int64?
    var versionIdentifiers: [String]
    var versionHashesDigest: String?
    var hasModelCache: Bool
    /// The store's own model (Z_MODELCACHE), when it has one.
    var embeddedModel: EmbeddedModelReport?
    var otherMetadataKeys: [String]
    var entities: [EntityRow]
    /// Tables that are not an entity's or a relationship's: Core Data's bookkeeping, persistent
    /// history, CloudKit mirroring, and what neither explains (`unknown`).
    var otherTables: [OtherTable]

    struct OtherTable: Encodable {
        var name: String
        var kind: String
        var rows: Int
    }
    var model: ModelMatchReport?
    /// Files an interrupted migration left beside the store (finished by `molt recover`).
    var interruptedMigration: [String]

    init(store: SQLiteStore) throws {
        let metadata = store.metadata
        let facts = try store.fileFacts()
        path = store.url.path
        fileSize = Int64((try? FileManager.default.attributesOfItem(atPath: store.url.path)[.size] as? Int) ?? 0)
        pageSize = facts.pageSize
        pageCount = facts.pageCount
        autoVacuum = ["none", "full", "incremental"][min(max(facts.autoVacuum, 0), 2)]
        journalMode = try store.journalMode()
        // The files beside the store as it was found, not those this reading made.
        companions = store.companionsBeforeOpening.all.map {
            Companion(kind: $0.name, path: $0.entry.url.path, size: $0.entry.size)
        }
        interruptedMigration = [".molt-new", ".molt-swap"].map { store.url.path + $0 }
            .filter { FileManager.default.fileExists(atPath: $0) }
        storeUUID = metadata.storeUUID
        storeType = metadata.storeType
        frameworkVersion = metadata.frameworkVersion
        versionHashesVersion = metadata.versionHashesVersion
        versionIdentifiers = metadata.versionIdentifiers
        versionHashesDigest = metadata.versionHashesDigest
        hasModelCache = try store.hasModelCache()
        embeddedModel = hasModelCache ? EmbeddedModelReport(store: store) : nil
        otherMetadataKeys = metadata.additionalEntries.keys.sorted()
        otherTables = try StoreSurvey(store: store, layout: nil).contents().tables
            .filter {
                ![.model, .sqlite].contains($0.kind)
                    && !["Z_METADATA", "Z_PRIMARYKEY", "Z_MODELCACHE"].contains($0.name)
            }
            .map { OtherTable(name: $0.name, kind: $0.kind.rawValue, rows: $0.rows ?? 0) }
        let counts = Dictionary(try store.objectCounts().map { ($0.entity, $0.count) }, uniquingKeysWith: { a, _ in a })
        let records = Dictionary(store.entityRecords.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let byNumber = Dictionary(store.entityRecords.map { ($0.number, $0.name) }, uniquingKeysWith: { a, _ in a })
        let names = Set(metadata.entityVersionHashes.keys).union(records.keys).sorted { a, b in
            switch (records[a]?.number, records[b]?.number) {
            case (let x?, let y?): x < y
            case (nil, nil): NameOrder.precedes(a, b)
            case (nil, _): false
            case (_, nil): true
            }
        }
        entities = names.map { name in
            EntityRow(
                name: name, number: records[name]?.number,
                parent: records[name].flatMap { $0.superNumber == 0 ? nil : byNumber[$0.superNumber] },
                objects: counts[name], versionHash: metadata.entityVersionHashes[name]?.hexString)
        }
    }

    func printText() {
        Output.line("Store:        \(path)")
        Output.line("File:         \(fileSize) bytes, \(pageCount) pages of \(pageSize), auto-vacuum \(autoVacuum)")
        Output.line("Journal:      \(journalMode)")
        if companions.isEmpty {
            Output.line("Companions:   none")
        } else {
            for (offset, companion) in companions.enumerated() {
                let size =
                    companion.kind == "support" || companion.kind == "external data"
                    ? "\(companion.size) entries" : "\(companion.size) bytes"
                Output.line(
                    "\(offset == 0 ? "Companions:   " : "              ")\(companion.kind): \(companion.path) (\(size))"
                )
            }
        }
        if !interruptedMigration.isEmpty {
            Output.line(
                "Interrupted:  a migration was interrupted (\(interruptedMigration.joined(separator: ", "))); run `molt recover`"
            )
        }
        Output.line("UUID:         \(storeUUID)")
        Output.line("Store type:   \(storeType)")
        Output.line(
            "Framework:    \(frameworkVersion.map(String.init) ?? "not recorded") (NSPersistenceFrameworkVersion)")
        Output.line(
            "Hashes:       version \(versionHashesVersion.map(String.init) ?? "?")\(versionHashesDigest.map { ", digest \($0)" } ?? "")"
        )
        Output.line(
            "Identifiers:  \(versionIdentifiers.isEmpty ? "none" : versionIdentifiers.map { "\"\($0)\"" }.joined(separator: ", "))"
        )
        Output.line("Model cache:  \(hasModelCache ? "present (Z_MODELCACHE)" : "none")")
        embeddedModel?.printText()
        if !otherMetadataKeys.isEmpty {
            Output.line("Other keys:   \(otherMetadataKeys.joined(separator: ", "))")
        }
        Output.line("Entities:")
        let rows =
            [["#", "ENTITY", "PARENT", "OBJECTS", "VERSION HASH"]]
            + entities.map { row in
                [
                    row.number.map(String.init) ?? "-", row.name, row.parent ?? "-",
                    row.objects.map(String.init) ?? "-",
                    row.versionHash
                        ?? ((row.number ?? 0) > PersistentHistory.privateEntityFloor
                            ? "(Core Data's own entity)" : "(not in metadata)"),
                ]
            }
        Output.table(rows).forEach { Output.line($0) }
        if !otherTables.isEmpty {
            Output.line("Other tables:")
            Output.table(
                [["TABLE", "WHAT", "ROWS"]]
                    + otherTables.map { [$0.name, Self.describe($0.kind), String($0.rows)] }
            ).forEach { Output.line($0) }
        }
        if let model { model.printText() }
    }
}

extension StoreReport {
    static func describe(_ kind: String) -> String {
        switch StoreContents.Kind(rawValue: kind) {
        case .bookkeeping: "Core Data's bookkeeping"
        case .history: "persistent history"
        case .cloudKit: "CloudKit mirroring"
        case .unknown: "neither the model's nor Core Data's"
        default: kind
        }
    }
}

/// Which model version matches a store.
struct ModelMatchReport: Encodable {
    struct Candidate: Encodable {
        var version: String
        var compatibility: String
    }

    var path: String
    var matchingVersion: String?
    var currentVersion: String?
    var candidates: [Candidate]

    init(store: SQLiteStore, source: ModelSource, path: String) throws {
        self.path = path
        let models = try source.candidateModels()
        candidates = try models.map {
            Candidate(version: $0.name ?? "(model)", compatibility: try store.compatibility(with: $0).description)
        }
        matchingVersion = try store.firstCompatibleModel(in: models).map { $0.name ?? "(model)" }
        if case .bundle(let bundle) = source { currentVersion = bundle.currentVersionName }
    }

    func printText() {
        Output.line("Model:        \(path)")
        if let matchingVersion {
            let current =
                currentVersion.map { $0 == matchingVersion ? " (the current version)" : " (current version: \($0))" }
                ?? ""
            Output.line("Matching:     \(matchingVersion)\(current)")
        } else {
            Output.line("Matching:     none")
            for candidate in candidates {
                Output.line("              \(candidate.version): \(candidate.compatibility)")
            }
        }
    }
}
