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

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let logger = global.bootstrap()
        try global.run {
            let held = try lock.acquire(store, logger: logger)
            defer { held.release() }
            switch try StoreRecovery.recover(locked: held, logger: logger) {
            case .nothingToDo: Output.line("Nothing to recover at \(store).")
            case .finishedSwap: Output.line("Finished an interrupted migration: \(store) is the migrated store.")
            case .removedUnfinishedMigration:
                Output.line("Removed an unfinished migration's files: \(store) is the store as it was.")
            }
        }
    }
}
