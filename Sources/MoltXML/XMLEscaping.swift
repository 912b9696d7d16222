/// Writing text into XML so that Molt's own readers give it back unchanged.
public enum XMLEscaping {
    /// `text` escaped for element content (`quote` nil) or for an attribute value delimited by
    /// `quote`. Markup characters are escaped, and so is every carriage return (a parser turns
    /// a raw one into a newline); in attributes also newlines and tabs (a parser turns raw
    /// ones into spaces) and the delimiting quote. Works on Unicode scalars, so a "\r\n" pair
    /// is escaped as two characters.
    public static func escaped(_ text: String, quote: Character? = nil) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\r": out += "&#13;"
            case "\n" where quote != nil: out += "&#10;"
            case "\t" where quote != nil: out += "&#9;"
            case "\"" where quote == "\"": out += "&quot;"
            case "'" where quote == "'": out += "&apos;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The first character of `text` that XML 1.0 cannot hold at all, even escaped (control
    /// characters other than tab, newline and carriage return; U+FFFE and U+FFFF).
    public static func firstUnwritable(in text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first { scalar in
            (scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r")
                || scalar.value == 0xFFFE || scalar.value == 0xFFFF
        }
    }
}
