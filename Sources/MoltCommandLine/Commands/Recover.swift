import ArgumentParser
import Foundation
import Molt

struct Recover: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Finish or undo a migration that was interrupted (by a crash or power loss).",
        discussion: """
            If the new store was complete, the swap is finished; otherwise the unfinished files \
            are removed and the old store stays. `molt migrate` does this by itself first. \
            While another migration of the store runs, its files are its work, not leftovers: \
            recover waits for it (--wait) or stops with exit code 75. It also removes what a \
            `molt create` killed outright left beside STORE (.NAME.molt-<UUID>.creating and its \
            -journal, -wal, -shm), even when STORE itself was never made; the files of a \
            create still running are left alone.
            """)

    @Argument(help: "The store.")
    var store: String

    @OptionGroup var lock: LockOptions

    @Flag(help: "Print the result as JSON on standard output (errors too, with their code).")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let logger = global.bootstrap()
        try global.run(json: json) {
            let url = URL(fileURLWithPath: store)
            if !FileManager.default.fileExists(atPath: store) {
                // A create killed before its store was moved into place: its files are all
                // there is. With none either, the missing store is an error, as before.
                let sweep = CreationLeftovers.remove(beside: url)
                if !sweep.isEmpty {
                    let outcome = sweep.removed.isEmpty ? "creationRunning" : "removedCreationLeftovers"
                    try report(sweep, outcome: outcome, pending: nil)
                    return
                }
            }
            let held = try lock.acquire(store, logger: logger)
            defer { held.release() }
            let outcome = try StoreRecovery.recover(locked: held, logger: logger)
            if outcome == .nothingToDo {
                // Nothing was left to finish: say so only of a store (a file that is not one,
                // or not Core Data's, is an error as in every other command).
                try SQLiteStore(at: URL(fileURLWithPath: store), readOnly: true, logger: logger).connection.close()
            }
            let pending = StoreRecovery.pendingLogBytes(at: url)
            let sweep = CreationLeftovers.remove(beside: url)
            if json {
                try report(sweep, outcome: "\(outcome)", pending: pending)
                return
            }
            switch outcome {
            case .nothingToDo where !sweep.removed.isEmpty: break
            case .nothingToDo: Output.line("Nothing to recover at \(store).")
            case .finishedSwap: Output.line("Finished an interrupted migration: \(store) is the migrated store.")
            case .removedUnfinishedMigration:
                Output.line("Removed an unfinished migration's files: \(store) is the store as it was.")
            }
            if let pending {
                // Readers see these transactions; only the store file does not hold them yet.
                Output.line(
                    "Note: \(store)-wal holds \(pending) bytes of transactions not yet in the store file, which this user cannot write; make it writable and run `molt recover` again to make the store one file."
                )
            }
            try report(sweep, outcome: nil, pending: nil)
        }
    }

    /// Says what was done with an interrupted creation's files: in JSON, the whole result
    /// (`outcome` given); in text, a line per file removed and per creation still running.
    private func report(_ sweep: CreationLeftovers.Sweep, outcome: String?, pending: Int64?) throws {
        if json, let outcome {
            try Output.json(
                RecoverJSON(
                    store: store, outcome: outcome, pendingLogBytes: pending, removedCreationFiles: sweep.removed,
                    runningCreations: sweep.inUse))
            return
        }
        guard !json else { return }
        if !sweep.removed.isEmpty {
            Output.line("Removed what an interrupted `molt create` of \(store) left:")
            for path in sweep.removed { Output.line("  \(path)") }
        }
        for path in sweep.inUse {
            Output.line("Left \(path): a `molt create` of \(store) still running is building it.")
        }
    }
}
