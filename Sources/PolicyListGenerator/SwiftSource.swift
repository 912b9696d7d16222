/// A Swift file's text with comments and string literals blanked out (each character replaced
/// by a space, newlines kept), so that braces, keywords and names can be found by scanning
/// and every offset still has its line number.
struct SwiftSource {
    let path: String
    /// The code, as an array of bytes (UTF-8), comments and literals blanked.
    let code: [UInt8]
    /// The file as written, at the same offsets.
    let raw: [UInt8]

    init(path: String, text: String) {
        self.path = path
        raw = Array(text.utf8)
        code = Self.blank(raw)
    }

    /// The 1-based line of `offset`.
    func line(of offset: Int) -> Int {
        var line = 1
        for index in 0..<min(offset, code.count) where code[index] == UInt8(ascii: "\n") { line += 1 }
        return line
    }

    func text(_ range: Range<Int>) -> String {
        String(decoding: code[range], as: UTF8.self)
    }

    private static func blank(_ bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        var index = 0
        func clear(_ range: Range<Int>) {
            for at in range where out[at] != UInt8(ascii: "\n") { out[at] = UInt8(ascii: " ") }
        }
        func starts(_ text: String, at position: Int) -> Bool {
            let pattern = Array(text.utf8)
            return position + pattern.count <= bytes.count
                && Array(bytes[position..<position + pattern.count]) == pattern
        }
        while index < bytes.count {
            if starts("//", at: index) {
                var end = index
                while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                clear(index..<end)
                index = end
            } else if starts("/*", at: index) {
                // Swift's block comments nest.
                var depth = 0
                var end = index
                repeat {
                    if starts("/*", at: end) {
                        depth += 1
                        end += 2
                    } else if starts("*/", at: end) {
                        depth -= 1
                        end += 2
                    } else {
                        end += 1
                    }
                } while depth > 0 && end < bytes.count
                clear(index..<min(end, bytes.count))
                index = end
            } else if bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "#") {
                guard let end = stringEnd(bytes, from: index) else {
                    index += 1
                    continue
                }
                clear(index..<end)
                index = end
            } else {
                index += 1
            }
        }
        return out
    }

    /// The offset just past the string literal starting at `start` (`"…"`, `"""…"""`, raw
    /// `#"…"#`), or nil when no literal starts there.
    private static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var hashes = 0
        var index = start
        while index < bytes.count, bytes[index] == UInt8(ascii: "#") {
            hashes += 1
            index += 1
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let quote = UInt8(ascii: "\"")
        let multiline = index + 2 < bytes.count && bytes[index + 1] == quote && bytes[index + 2] == quote
        let quotes = multiline ? 3 : 1
        index += quotes
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\\") {
                index = escapeEnd(bytes, from: index, hashes: hashes)
                continue
            }
            if bytes[index] == quote {
                var closing = 0
                while closing < quotes, index + closing < bytes.count, bytes[index + closing] == quote { closing += 1 }
                if closing == quotes {
                    var end = index + quotes
                    var closingHashes = 0
                    while closingHashes < hashes, end < bytes.count, bytes[end] == UInt8(ascii: "#") {
                        closingHashes += 1
                        end += 1
                    }
                    if closingHashes == hashes { return end }
                }
            }
            if !multiline && bytes[index] == UInt8(ascii: "\n") { return index }
            index += 1
        }
        return bytes.count
    }

    /// The offset past an escape at `start` (a backslash) in a literal with `hashes` delimiters:
    /// an interpolation `\(…)` is skipped whole, string literals inside it included.
    private static func escapeEnd(_ bytes: [UInt8], from start: Int, hashes: Int) -> Int {
        var index = start + 1
        var seen = 0
        while seen < hashes, index < bytes.count, bytes[index] == UInt8(ascii: "#") {
            seen += 1
            index += 1
        }
        guard seen == hashes else { return index }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "(") else { return index + 1 }
        var depth = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"):
                depth -= 1
                if depth == 0 { return index + 1 }
            case UInt8(ascii: "\""), UInt8(ascii: "#"):
                if let end = stringEnd(bytes, from: index) {
                    index = end
                    continue
                }
            default: break
            }
            index += 1
        }
        return index
    }
}
