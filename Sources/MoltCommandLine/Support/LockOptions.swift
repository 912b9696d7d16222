import ArgumentParser
import Foundation
import Logging
import Molt

/// `--wait`: what a writing command does when another migration of the store is running.
struct LockOptions: ParsableArguments {
    @Option(
        name: .customLong("wait"),
        help: ArgumentHelp(
            "When another migration of the store is running, wait up to SECONDS for it to finish (default: stop at once, exit code 75).",
            valueName: "seconds"))
    var wait: Double?

    func validate() throws {
        if let wait, !(wait >= 0 && wait.isFinite) {
            throw ValidationError("--wait takes a number of seconds, 0 or more")
        }
    }

    /// Notes, on standard error, a store reached through a symbolic link: the file it leads to
    /// is the one migrated.
    func noteLink(_ store: String) throws {
        let location = try StoreLocation(URL(fileURLWithPath: store))
        if location.isLink {
            Output.note("\(store) is a symbolic link: migrating \(location.url.path), the file it leads to")
        }
    }

    /// Takes the store's migration lock (for `recover`, which works on a locked store), saying
    /// so on standard error when it waits; notes a store reached through a symbolic link.
    func acquire(_ store: String, logger: Logger) throws -> MigrationLock {
        let url = URL(fileURLWithPath: store)
        try noteLink(store)
        let seconds = wait ?? 0
        return try MigrationLock.acquire(store: url, wait: seconds, logger: logger) { holder in
            Output.note(
                "another migration of this store is running\(holder.map { " (process \($0))" } ?? ""); waiting up to \(Self.seconds(seconds)) for it to finish"
            )
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}
