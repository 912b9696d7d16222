/// Writing JSON text: string escaping and number formatting used by Molt's canonical output.
/// Expression text uses the same string escaping.
package enum JSONText {
    /// `text` as a JSON string literal. Escapes quotes, backslashes and control characters;
    /// other characters are written as themselves (UTF-8).
    package static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{00}"..."\u{1F}", "\u{7F}":
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A finite double in the shortest form that reads back to the same value (`1.0`, `0.1`,
    /// `1e-05`); non-finite values have no JSON number and are written as strings.
    static func number(_ value: Double) -> String {
        if value.isNaN { return quoted("NaN") }
        if value.isInfinite { return quoted(value > 0 ? "Infinity" : "-Infinity") }
        return value.description
    }
}
