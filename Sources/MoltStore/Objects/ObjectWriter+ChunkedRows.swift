internal import MoltSQLite

/// Rows a batch decided, written many to a statement: `INSERT … VALUES (…), (…), …` and
/// `UPDATE … FROM (VALUES (…), (…), …)`. One statement of 64 rows costs SQLite about 45% less
/// per inserted row than 64 statements of one (its set-up, `OP_Halt` and reset are paid once);
/// an update saves less (most of its cost is the row and index rewrite).
///
/// The rows are given in order and written in that order; a statement of several rows writes
/// them as the same statements one row at a time would, provided that no two rows of one call
/// touch the same stored row (a batch names each owner once).
extension ObjectWriter {
    /// Rows per statement at most; fewer when the rows are wide (SQLite's oldest limit on
    /// parameters is 999).
    static let rowsPerStatement = 64

    /// Writes `values.count / width` rows of `width` values each (`values` holds them one
    /// after another) with statements `prefix` + `(?, …), (?, …), …` + `suffix`: full chunks
    /// first, then the rest in halving chunks, so at most seven statement shapes are prepared
    /// per `prefix`. Counts one statement per row.
    func writeRows(_ prefix: String, _ suffix: String = "", width: Int, values: [SQLiteValue]) throws {
        precondition(width > 0 && values.count % width == 0, "rows of \(width) values")
        let rows = values.count / width
        guard rows > 0 else { return }
        var chunk = max(1, min(Self.rowsPerStatement, 999 / width))
        var row = 0
        while row < rows {
            while chunk > 1 && rows - row < chunk { chunk /= 2 }
            let statement = try chunkStatement(ChunkShape(prefix: prefix, suffix: suffix, width: width, rows: chunk))
            try statement.reset()
            var index: Int32 = 1
            for value in values[(row * width)..<((row + chunk) * width)] {
                try statement.bind(value, at: index)
                index += 1
            }
            try statement.run()
            for _ in 0..<chunk { countStatement() }
            row += chunk
        }
    }

    /// The statement of one chunk's shape, prepared on first use.
    private func chunkStatement(_ shape: ChunkShape) throws -> SQLiteStatement {
        if let known = chunkStatements[shape] { return known }
        let tuple = "(\(SQL.placeholders(shape.width)))"
        let statement = try prepared(
            shape.prefix + Array(repeating: tuple, count: shape.rows).joined(separator: ", ") + shape.suffix)
        chunkStatements[shape] = statement
        return statement
    }

    /// Sets `columns` of rows of `table` by primary key: each row of `values` is the key, then
    /// the columns' new values. One `UPDATE … FROM (VALUES …)` per chunk.
    func updateRows(_ table: String, columns: [String], values: [SQLiteValue]) throws {
        guard !values.isEmpty else { return }
        let assignments = columns.enumerated().map { offset, column in
            "\(SQL.identifier(column)) = \"molt_rows\".\"column\(offset + 2)\""
        }
        try writeRows(
            "UPDATE \(SQL.identifier(table)) SET \(assignments.joined(separator: ", ")) FROM (VALUES ",
            ") AS \"molt_rows\" WHERE \(SQL.identifier(table)).\"Z_PK\" = \"molt_rows\".\"column1\"",
            width: columns.count + 1, values: values)
    }
}

/// A statement of ``ObjectWriter/writeRows(_:_:width:values:)``: its text around the rows, and
/// how many rows of how many values it takes.
struct ChunkShape: Hashable {
    let prefix: String
    let suffix: String
    let width: Int
    let rows: Int
}
