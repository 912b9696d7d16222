/// Building SQL text safely: every identifier quoted, every string literal escaped.
///
/// Names that come from a model (entities, attributes, relationships) must never reach SQL
/// unquoted; always go through ``identifier(_:)``.
public enum SQL {
    /// `name` as a quoted SQL identifier: `Z_PK` → `"Z_PK"`, `a"b` → `"a""b"`.
    public static func identifier(_ name: String) -> String {
        // Built often (statements are keyed by their text): a name without quotes, the usual
        // case, skips the search-and-replace.
        guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
        return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` as a quoted SQL string literal: `it's` → `'it''s'`.
    public static func literal(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "'")) else { return "'" + text + "'" }
        return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// A comma-separated list of quoted identifiers.
    public static func identifiers(_ names: [String]) -> String {
        names.map(identifier).joined(separator: ", ")
    }

    /// `count` parameter placeholders: `?, ?, ?`.
    public static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
