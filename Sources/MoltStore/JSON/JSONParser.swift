public import Foundation
internal import MoltCore

/// A strict JSON parser (RFC 8259) that reports the line and column of every syntax error,
/// refuses duplicate keys, and limits nesting so hostile input cannot exhaust the stack.
public struct JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    public var maximumDepth = 256

    public init() {}

    /// Parses `data`; `file` names it in errors.
    public func parse(_ data: Data, file: String) throws -> JSONNode {
        var scanner = Scanner(bytes: Array(data), file: file, maximumDepth: maximumDepth)
        scanner.skipByteOrderMark()
        scanner.skipWhitespace()
        let value = try scanner.value(depth: 0)
        scanner.skipWhitespace()
        guard scanner.atEnd else { throw scanner.error("unexpected text after the JSON value") }
        return value
    }
}

private struct Scanner {
    let bytes: [UInt8]
    let file: String
    let maximumDepth: Int
    var index = 0
    var line = 1
    var lineStart = 0

    init(bytes: [UInt8], file: String, maximumDepth: Int) {
        self.bytes = bytes
        self.file = file
        self.maximumDepth = maximumDepth
    }

    var atEnd: Bool { index >= bytes.count }
    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    func error(_ message: String) -> MoltError {
        MoltError(
            .fileReadCorruptFile, "invalid JSON: \(message)",
            location: SourceLocation(file: file, line: line, column: index - lineStart + 1))
    }

    mutating func skipByteOrderMark() {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3; lineStart = 3 }
    }

    mutating func skipWhitespace() {
        while let byte = current {
            switch byte {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            default: return
            }
        }
    }

    mutating func expect(_ literal: String) throws {
        let expected = Array(literal.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<(index + expected.count)]) == expected else {
            throw error("expected \(literal)")
        }
        index += expected.count
    }

    mutating func value(depth: Int) throws -> JSONNode {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
        let startLine = line
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return JSONNode(try object(depth: depth), line: startLine)
        case UInt8(ascii: "["): return JSONNode(try array(depth: depth), line: startLine)
        case UInt8(ascii: "\""): return JSONNode(.string(try string()), line: startLine)
        case UInt8(ascii: "t"):
            try expect("true")
            return JSONNode(.bool(true), line: startLine)
        case UInt8(ascii: "f"):
            try expect("false")
            return JSONNode(.bool(false), line: startLine)
        case UInt8(ascii: "n"):
            try expect("null")
            return JSONNode(.null, line: startLine)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(.number(try number()), line: startLine)
        default:
            throw error("unexpected character \(describe(byte))")
        }
    }

    func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "0x%02X", byte)
    }

    mutating func object(depth: Int) throws -> JSONNode.Kind {
        index += 1  // {
        var members: [JSONNode.Member] = []
        var keys: Set<String> = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a key in double quotes") }
            let key = try string()
            guard keys.insert(key).inserted else { throw error("the key \"\(key)\" appears twice in one object") }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after the key \"\(key)\"") }
            index += 1
            skipWhitespace()
            members.append(JSONNode.Member(key: key, value: try value(depth: depth + 1)))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            case nil: throw error("unexpected end of input: an object is not closed")
            default: throw error("expected ',' or '}' in an object")
            }
        }
    }

    mutating func array(depth: Int) throws -> JSONNode.Kind {
        index += 1  // [
        var items: [JSONNode] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(items)
            case nil: throw error("unexpected end of input: an array is not closed")
            default: throw error("expected ',' or ']' in an array")
            }
        }
    }

    mutating func string() throws -> String {
        index += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard let byte = current else { throw error("unterminated string") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: out, as: UTF8.self) else {
                    throw error("a string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                guard let escape = current else { throw error("unterminated string") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard current == UInt8(ascii: "\\"), index + 1 < bytes.count,
                            bytes[index + 1] == UInt8(ascii: "u")
                        else {
                            throw error("a \\u escape starts a surrogate pair that does not finish")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("a lone low surrogate in a \\u escape")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw error("invalid escape \\\(describe(escape))")
                }
            case 0x00..<0x20:
                throw error("a control character inside a string (write it as an escape, such as \\n)")
            default:
                out.append(byte)
            }
        }
    }

    mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count,
            let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
        else { throw error("a \\u escape needs four hexadecimal digits") }
        index += 4
        return value
    }

    mutating func number() throws -> String {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        func digits() -> Int {
            let begin = index
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
            return index - begin
        }
        if current == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { throw error("a number needs digits") }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error("a number needs digits after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error("a number needs digits in its exponent") }
        }
        if let byte = current, (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".") {
            throw error("numbers cannot have leading zeros")
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }
}
