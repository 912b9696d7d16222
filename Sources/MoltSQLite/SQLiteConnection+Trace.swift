internal import CSQLite

extension SQLiteConnection {
    /// Calls `handler` with the text of every statement this connection starts, its
    /// parameters replaced by their values (`sqlite3_expanded_sql`), in order; nil stops it.
    /// A statement run several times is reported each time it starts again. For audits of
    /// what a migration did, and for replaying it as bare SQL in benchmarks.
    public func trace(_ handler: ((String) -> Void)?) {
        guard let handler else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            traceHandler = nil
            return
        }
        let box = SQLTraceBox(handler)
        traceHandler = box
        sqlite3_trace_v2(
            handle, UInt32(SQLITE_TRACE_STMT),
            { _, context, statement, _ in
                guard let context, let statement else { return 0 }
                let box = Unmanaged<SQLTraceBox>.fromOpaque(context).takeUnretainedValue()
                let prepared = OpaquePointer(statement)
                if let expanded = sqlite3_expanded_sql(prepared) {
                    box.handler(String(cString: expanded))
                    sqlite3_free(expanded)
                } else if let text = sqlite3_sql(prepared) {
                    box.handler(String(cString: text))
                }
                return 0
            }, Unmanaged.passUnretained(box).toOpaque())
    }
}

/// Holds a trace handler for SQLite's C callback.
final class SQLTraceBox {
    let handler: (String) -> Void

    init(_ handler: @escaping (String) -> Void) {
        self.handler = handler
    }
}
