import MoltSQLite

/// Groups the destination store's writes into transactions of a fixed number of objects, so a
/// migration of any size keeps its write-ahead log and memory bounded.
final class BatchTransaction {
    private let connection: SQLiteConnection
    private let size: Int
    private var pending = 0
    private(set) var isOpen = false

    init(connection: SQLiteConnection, size: Int) {
        self.connection = connection
        self.size = max(1, size)
    }

    func begin() throws {
        guard !isOpen else { return }
        try connection.execute("BEGIN")
        isOpen = true
        pending = 0
    }

    /// Counts one object; commits and starts a new transaction every `size` objects.
    func step() throws {
        pending += 1
        if pending >= size {
            try commit()
            try begin()
        }
    }

    func commit() throws {
        guard isOpen else { return }
        try connection.execute("COMMIT")
        isOpen = false
    }
}
