import Foundation

/// A small deterministic random number generator, so a failing case can be replayed from its
/// seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Mutates real example files the way a fuzzer does: byte by byte (flip, replace, insert,
/// delete, duplicate, truncate, splice) and by structure (whole lines deleted, repeated or
/// swapped; hostile tokens such as a DTD, a CDATA end, deep nesting or a huge number inserted
/// at random places).
struct Mutator {
    /// Tokens worth inserting, for the kind of text being mutated.
    let tokens: [String]
    /// Other inputs to splice from.
    let pool: [Data]
    var generator: SeededGenerator

    static let xmlTokens = [
        "<", ">", "&", "&amp;", "&lol;", "&#0;", "&#x10FFFF;", "&#xD800;", "\"", "'", "<!--", "-->", "<![CDATA[", "]]>",
        "<?xml version=\"1.0\"?>", "<!DOCTYPE model [<!ENTITY lol \"lol\">]>",
        "<!DOCTYPE plist SYSTEM \"http://127.0.0.1:9/x.dtd\">",
        "<entity name=\"A\">", "</entity>", "<attribute name=\"a\" attributeType=\"String\"/>",
        "attributeType=\"Integer 64\"",
        "toMany=\"YES\"", "parentEntity=\"A\"", "inverseName=\"b\"", "maxCount=\"-1\"", "<entity-mapping",
        "type=\"custom\"",
        "value=\"$source.\"", "<filter>", "</filter>", "<dict>", "<key>", "<integer>99999999999999999999</integer>",
        "<data>====</data>", "<date>2024-13-45T99:00:00Z</date>", "\u{0}", "\u{FEFF}", "é",
        String(repeating: "<a>", count: 40),
    ]
    static let expressionTokens = [
        "(", ")", "{", "}", "[", "]", ",", ".", "'", "\"", "\\", "\\u", "$", "$source", "#", "@count", "@sum", "ANY",
        "ALL", "NONE",
        "NOT", "AND", "OR", "IN", "BETWEEN", "MATCHES", "LIKE", "[cd]", "**", "==", "<=", "!", "-", "+", "/", "*", "0",
        "1e308",
        "1e999", "99999999999999999999", "-9223372036854775808", "FUNCTION(", "TERNARY(", "CAST(", "SUBQUERY(", "nil",
        "now()",
        "[FIRST]", "[SIZE]", "[LAST]", "\u{0}", "é", String(repeating: "(", count: 300),
        String(repeating: "-", count: 300),
        String(repeating: "NOT ", count: 300),
    ]
    static let jsonTokens = [
        "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud800", "\\udc00", "null", "true", "0", "-0", "1e999",
        "-1e400",
        "99999999999999999999", "\"@id\"", "\"Author/1\"", "\"entities\"", "\"Post\"", "\"Tag\"", "\"posts\": []",
        "\"name\": null", "\u{0}", "\u{7F}", String(repeating: "[", count: 300),
    ]

    init(tokens: [String], pool: [Data], seed: UInt64) {
        self.tokens = tokens
        self.pool = pool
        self.generator = SeededGenerator(state: seed)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }

    /// One to four mutations of `input`.
    mutating func mutate(_ input: Data) -> Data {
        var bytes = [UInt8](input)
        for _ in 0..<int(1...4) {
            bytes = mutateOnce(bytes)
        }
        return Data(bytes)
    }

    private mutating func mutateOnce(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        let position = bytes.isEmpty ? 0 : int(0...bytes.count)
        switch int(0...11) {
        case 0 where !bytes.isEmpty:  // flip a bit
            let index = int(0...bytes.count - 1)
            bytes[index] ^= UInt8(1 << int(0...7))
        case 1 where !bytes.isEmpty:  // replace a byte
            bytes[int(0...bytes.count - 1)] = UInt8(int(0...255))
        case 2:  // insert random bytes
            bytes.insert(contentsOf: (0..<int(1...8)).map { _ in UInt8(int(0...255)) }, at: position)
        case 3 where !bytes.isEmpty:  // delete a range
            let end = min(bytes.count, position + int(1...64))
            bytes.removeSubrange(min(position, end)..<end)
        case 4 where !bytes.isEmpty:  // duplicate a range
            let start = int(0...bytes.count - 1)
            let chunk = Array(bytes[start..<min(bytes.count, start + int(1...128))])
            bytes.insert(contentsOf: chunk, at: position)
        case 5:  // truncate
            bytes = Array(bytes.prefix(position))
        case 6, 7, 8:  // insert a hostile token
            bytes.insert(contentsOf: Array(tokens.randomElement(using: &generator)!.utf8), at: position)
        case 9:  // splice with another input
            if let other = pool.randomElement(using: &generator), !other.isEmpty {
                let cut = int(0...other.count)
                bytes = Array(bytes.prefix(position)) + Array(other.suffix(from: cut))
            }
        default:  // structure: a line deleted, repeated or swapped
            var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
            guard lines.count > 1 else { break }
            let a = int(0...lines.count - 1)
            let b = int(0...lines.count - 1)
            switch int(0...2) {
            case 0: lines.remove(at: a)
            case 1: lines.insert(contentsOf: Array(repeating: lines[a], count: int(1...20)), at: b)
            default: lines.swapAt(a, b)
            }
            bytes = Array(lines.joined(separator: [0x0A]))
        }
        return bytes
    }
}
