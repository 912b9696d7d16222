internal import Foundation
internal import MoltCore

/// Turning an archived default value back into the text Xcode's model files hold
/// (`defaultValueString`), which ``DefaultValueReading`` reads.
///
/// Numbers, strings and booleans are archived inline; dates as `NSDate` (`NS.time`, seconds
/// since 2001, which is also how Xcode writes a date default), decimals as `NSDecimalNumber`
/// (`NS.mantissa`, `NS.exponent`, `NS.negative`, `NS.length`), UUIDs as `NSUUID`
/// (`NS.uuidbytes`) and URIs as `NSURL` (`NS.relative`). Anything else is noted and left out:
/// default values never take part in version hashes.
extension CompiledModelContext {
    func defaultValueText(_ value: ArchivedValue?, type: AttributeType, owner: String) throws -> String? {
        guard let value else { return nil }
        switch value {
        case .plain(.string(let text)):
            return text
        case .plain(.integer(let number)):
            return type == .boolean ? (number != 0 ? "YES" : "NO") : String(number)
        case .plain(.bool(let flag)):
            return type == .boolean ? (flag ? "YES" : "NO") : (flag ? "1" : "0")
        case .plain(.real(let number)):
            return ArchivedNumbers.text(number)
        case .plain(.date(let date)):
            return ArchivedNumbers.text(date.timeIntervalSinceReferenceDate)
        case .plain(let other):
            note("the default value of \(owner) (\(other.kindName)) is not kept")
            return nil
        case .object(let object):
            if let text = try objectText(object) { return text }
            note("the default value of \(owner) (\(object.className)) is not kept")
            return nil
        }
    }

    private func objectText(_ object: ArchivedObject) throws -> String? {
        if object.isKind(of: "NSString") { return try object.string("NS.string") }
        if object.isKind(of: "NSDate"), case .real(let seconds)? = object.fields["NS.time"] {
            return ArchivedNumbers.text(seconds)
        }
        if object.isKind(of: "NSDecimalNumber") { return try ArchivedNumbers.decimalText(object) }
        if object.isKind(of: "NSUUID"), case .data(let bytes)? = object.fields["NS.uuidbytes"], bytes.count == 16 {
            return ArchivedNumbers.uuidText(Array(bytes))
        }
        if object.isKind(of: "NSURL"), try object.object("NS.base") == nil {
            return try object.string("NS.relative")
        }
        return nil
    }
}

/// Number formatting for compiled-model values.
enum ArchivedNumbers {
    /// The shortest text that reads back as the same `Double` ("0.0", "1.5", "1e-05").
    static func text(_ number: Double) -> String {
        String(number)
    }

    /// An `NSDecimalNumber`'s value as decimal text ("12.50", "-3", "1200"): the mantissa
    /// (up to eight 16-bit words, least significant first) times ten to the exponent. Nil for
    /// a NaN or a malformed mantissa.
    static func decimalText(_ object: ArchivedObject) throws -> String? {
        guard case .data(let mantissa)? = object.fields["NS.mantissa"],
            let length = try object.integer("NS.length"), (0...8).contains(length),
            let exponent = try object.integer("NS.exponent"), (-128...127).contains(exponent),
            mantissa.count >= Int(length) * 2
        else { return nil }
        let bigEndian = (try object.integer("NS.mantissa.bo") ?? 1) == 2  // Foundation: 1 little-endian, 2 big-endian
        let bytes = Array(mantissa)
        var words: [UInt32] = (0..<Int(length)).map { index in
            let low = UInt32(bytes[index * 2])
            let high = UInt32(bytes[index * 2 + 1])
            return bigEndian ? (low << 8 | high) : (high << 8 | low)
        }
        let negative = (try object.integer("NS.negative") ?? 0) != 0
        if words.isEmpty { return negative ? nil : "0" }
        // Repeated division by 10 of the little-endian word array.
        var digits: [UInt8] = []
        while words.contains(where: { $0 != 0 }) {
            var remainder: UInt32 = 0
            for index in words.indices.reversed() {
                let current = remainder << 16 | words[index]
                words[index] = current / 10
                remainder = current % 10
            }
            digits.append(UInt8(remainder))
        }
        if digits.isEmpty { digits = [0] }
        var text = String(digits.reversed().map { Character(String($0)) })
        if exponent > 0 {
            text += String(repeating: "0", count: Int(exponent))
        } else if exponent < 0 {
            let places = Int(-exponent)
            if text.count <= places { text = String(repeating: "0", count: places - text.count + 1) + text }
            text.insert(".", at: text.index(text.endIndex, offsetBy: -places))
        }
        return (negative ? "-" : "") + text
    }

    /// 16 bytes as a UUID's text, upper case like `UUID.uuidString`.
    static func uuidText(_ bytes: [UInt8]) -> String {
        let hex = bytes.map { String(format: "%02X", $0) }
        return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-")
    }
}
