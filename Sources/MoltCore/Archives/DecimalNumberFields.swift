import Foundation

/// The fields `NSDecimalNumber` archives itself with: `NS.exponent` (a power of ten, -128…127),
/// `NS.length` (how many of the mantissa's 16-bit words are used, 0…8), `NS.negative`,
/// `NS.compact` (whether the mantissa has no trailing decimal zeros; not needed to read it),
/// `NS.mantissa` (eight 16-bit words, least significant first, 16 bytes) and
/// `NS.mantissa.bo` (the words' byte order: 1 little-endian, 2 big-endian).
///
/// These are the keys and layout of the compiled models in real stores' `Z_MODELCACHE`
/// (decimal default values). swift-corelibs-foundation cannot archive an `NSDecimalNumber` and
/// misreads the mantissa when it unarchives one, so this layout is not checked against
/// Foundation on Linux.
enum DecimalNumberFields {
    static func fields(of number: Decimal) -> [String: PropertyList] {
        var words: [UInt16] = []
        var exponent = 0
        if number.isFinite, !number.isZero {
            exponent = number.exponent
            // The significand is the mantissa with exponent 0: its text is the mantissa's digits.
            words = Array(DecimalMantissa.words(digits: number.significand.description).prefix(8))
        }
        let bytes = DecimalMantissa.bytes(words)
        let digits = number.significand.description
        return [
            "NS.exponent": .integer(Int64(exponent)), "NS.length": .integer(Int64(words.count)),
            "NS.negative": .bool(number.isNaN || (number.sign == .minus && !number.isZero)),
            "NS.compact": .bool(words.isEmpty || !digits.hasSuffix("0")),
            "NS.mantissa": .data(bytes), "NS.mantissa.bo": .integer(1),
        ]
    }

    /// The number the fields describe. `problem` makes the error for a field that is missing
    /// or out of range.
    static func number(
        exponent: Int64?, length: Int64?, negative: Bool, mantissa: Data?, byteOrder: Int64?,
        problem: (String) -> any Error
    ) throws -> Decimal {
        guard let exponent, (-128...127).contains(exponent) else {
            throw problem("its NS.exponent is missing or not in -128…127")
        }
        guard let length, (0...8).contains(length) else {
            throw problem("its NS.length is missing or not in 0…8")
        }
        guard let mantissa, mantissa.count <= 16, mantissa.count >= Int(length) * 2 else {
            throw problem("its NS.mantissa is missing or does not hold \(length) 16-bit words")
        }
        // A length of 0 with the sign set is how NSDecimal writes "not a number".
        if length == 0 { return negative ? .nan : 0 }
        let bytes = Array(mantissa)
        let bigEndian = byteOrder == 2
        var significand = Decimal(0)
        var scale = Decimal(1)
        for index in 0..<Int(length) {
            let first = UInt16(bytes[index * 2])
            let second = UInt16(bytes[index * 2 + 1])
            let word = bigEndian ? first << 8 | second : second << 8 | first
            significand += Decimal(Int(word)) * scale
            scale *= 65536
        }
        if significand.isZero { return 0 }
        return Decimal(sign: negative ? .minus : .plus, exponent: Int(exponent), significand: significand)
    }
}
