/// Rows of cells as aligned lines, each column as wide as its widest cell, two spaces apart:
/// the tables of the reports' summaries and of `molt`'s output.
package enum TextTable {
    package static func lines(_ rows: [[String]], indent: String = "  ") -> [String] {
        guard let width = rows.map(\.count).max() else { return [] }
        var widths = Array(repeating: 0, count: width)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        return rows.map { row in
            indent
                + row.enumerated().map { column, cell in
                    column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                }.joined(separator: "  ")
        }
    }
}
