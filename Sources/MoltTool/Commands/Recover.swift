import ArgumentParser
import Foundation
import Molt

struct Recover: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Finish or undo a migration that was interrupted (by a crash or power loss).",
        discussion: """
            If the new store was complete, the swap is finished; otherwise the unfinished files \
            are removed and the old store stays. `molt migrate` does this by itself first.
            """)

    @Argument(help: "The store.")
    var store: String

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let logger = global.bootstrap()
        try global.run {
            switch try StoreRecovery.recover(at: URL(fileURLWithPath: store), logger: logger) {
            case .nothingToDo: Output.line("Nothing to recover at \(store).")
            case .finishedSwap: Output.line("Finished an interrupted migration: \(store) is the migrated store.")
            case .removedUnfinishedMigration:
                Output.line("Removed an unfinished migration's files: \(store) is the store as it was.")
            }
        }
    }
}
