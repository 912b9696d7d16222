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
            recover waits for it (--wait) or stops with exit code 75.
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
            let held = try lock.acquire(store, logger: logger)
            defer { held.release() }
            let outcome = try StoreRecovery.recover(locked: held, logger: logger)
            if outcome == .nothingToDo {
                // Nothing was left to finish: say so only of a store (a file that is not one,
                // or not Core Data's, is an error as in every other command).
                try SQLiteStore(at: URL(fileURLWithPath: store), readOnly: true, logger: logger).connection.close()
            }
            let pending = StoreRecovery.pendingLogBytes(at: URL(fileURLWithPath: store))
            if json {
                try Output.json(RecoverJSON(store: store, outcome: "\(outcome)", pendingLogBytes: pending))
                return
            }
            switch outcome {
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
        }
    }
}
