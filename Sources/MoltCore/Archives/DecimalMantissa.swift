public import Foundation

/// `NSDecimalNumber`'s mantissa as archived: the decimal digits as 16-bit words, least
/// significant first, in 16 bytes, each word little-endian (`NS.mantissa.bo` 1).
public enum DecimalMantissa {
    /// The words of the number whose decimal digits are `digits` (characters other than
    /// `0`–`9` are skipped), as many as it takes: a mantissa holds at most eight.
    public static func words(digits: some StringProtocol) -> [UInt16] {
        var words: [UInt32] = []
        for digit in digits.utf8 where (48...57).contains(digit) {
            var carry = UInt32(digit - 48)
            for index in words.indices {
                let value = words[index] * 10 + carry
                words[index] = value & 0xFFFF
                carry = value >> 16
            }
            if carry > 0 { words.append(carry) }
        }
        return words.map { UInt16($0) }
    }

    /// The 16 bytes of `NS.mantissa` for at most eight words.
    public static func bytes(_ words: [UInt16]) -> Data {
        var bytes = Data(count: 16)
        for (index, word) in words.prefix(8).enumerated() {
            bytes[index * 2] = UInt8(word & 0xFF)
            bytes[index * 2 + 1] = UInt8(word >> 8)
        }
        return bytes
    }
}
