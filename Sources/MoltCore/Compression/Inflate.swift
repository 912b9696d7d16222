public import Foundation

/// Decompresses raw DEFLATE data (RFC 1951: no zlib or gzip header), as Core Data keeps a
/// store's compiled model in `Z_MODELCACHE`.
///
/// Stored, fixed-Huffman and dynamic-Huffman blocks are read. The decoder is bounded: output
/// beyond ``outputLimit`` bytes is refused, and every length, code, distance and block header
/// is checked, so damaged or hostile data gives a ``MoltError`` with code
/// ``MoltError/Code-swift.struct/propertyListReadCorrupt`` that names what was being inflated
/// and the byte where the problem was found, never a crash. Every step consumes input or
/// produces bounded output, so no input makes it loop. Bytes after the final block are ignored.
///
/// ```swift
/// let archive = try Inflate().decompress(blob, name: "Store.sqlite's Z_MODELCACHE")
/// ```
public struct Inflate: Sendable {
    /// The default output limit: 256 MB, far above any compiled model.
    public static let defaultOutputLimit = 256 << 20

    /// The most bytes the output may have.
    public var outputLimit: Int

    public init(outputLimit: Int = Inflate.defaultOutputLimit) {
        self.outputLimit = outputLimit
    }

    /// The decompressed bytes of `data`; `name` says what is inflated in error messages.
    public func decompress(_ data: Data, name: String) throws -> Data {
        var decoder = InflateDecoder(input: [UInt8](data), name: name, limit: max(0, outputLimit))
        try decoder.run()
        return Data(decoder.output)
    }
}

/// One decompression: the bit reader, the output, and the block decoders.
private struct InflateDecoder {
    let input: [UInt8]
    let name: String
    let limit: Int
    var output: [UInt8] = []
    /// The next input byte not yet in `bits`.
    var position = 0
    /// Bits read but not consumed, least significant first.
    var bits: UInt64 = 0
    var bitCount = 0

    init(input: [UInt8], name: String, limit: Int) {
        self.input = input
        self.name = name
        self.limit = limit
        output.reserveCapacity(min(limit, max(1024, input.count * 4)))
    }

    // MARK: Errors

    /// The byte holding the next bit to read.
    var consumedBytes: Int { (position * 8 - bitCount) / 8 }

    func corrupt(_ reason: String) -> MoltError {
        MoltError(
            .propertyListReadCorrupt,
            "\(name) is not valid DEFLATE data: \(reason) (at byte \(consumedBytes) of \(input.count))",
            recovery: "The compressed data is damaged or was not written by a DEFLATE compressor.")
    }

    // MARK: Bits

    mutating func refill() {
        while bitCount <= 56, position < input.count {
            bits |= UInt64(input[position]) << UInt64(bitCount)
            position += 1
            bitCount += 8
        }
    }

    /// The next `count` (at most 32) bits as a number, first bit lowest.
    mutating func take(_ count: Int) throws -> Int {
        if bitCount < count { refill() }
        guard bitCount >= count else { throw corrupt("the data ends in the middle of a block") }
        let value = Int(bits & ((1 << UInt64(count)) - 1))
        bits >>= UInt64(count)
        bitCount -= count
        return value
    }

    /// The next bits without consuming them; missing bits at the end of the input read as 0.
    mutating func peek(_ count: Int) -> Int {
        if bitCount < count { refill() }
        return Int(bits & ((1 << UInt64(count)) - 1))
    }

    mutating func skip(_ count: Int) throws {
        guard bitCount >= count else { throw corrupt("the data ends in the middle of a code") }
        bits >>= UInt64(count)
        bitCount -= count
    }

    /// Drops the bits up to the next byte boundary (stored blocks start there).
    mutating func alignToByte() {
        let extra = bitCount % 8
        bits >>= UInt64(extra)
        bitCount -= extra
    }

    // MARK: Blocks

    mutating func run() throws {
        var isFinal = false
        while !isFinal {
            isFinal = try take(1) == 1
            switch try take(2) {
            case 0: try storedBlock()
            case 1: try huffmanBlock(literals: HuffmanCode.fixedLiterals, distances: HuffmanCode.fixedDistances)
            case 2: try dynamicBlock()
            default: throw corrupt("a block has the reserved type 3")
            }
        }
    }

    func reserveOutput(_ count: Int) throws {
        guard count <= limit - output.count else {
            throw corrupt("it inflates to more than the limit of \(limit) bytes")
        }
    }

    mutating func storedBlock() throws {
        alignToByte()
        let length = try take(16)
        let complement = try take(16)
        guard length == ~complement & 0xFFFF else {
            throw corrupt("a stored block's length \(length) does not match its check value \(complement)")
        }
        try reserveOutput(length)
        // Whole bytes still in the bit buffer come first, then the input itself.
        var remaining = length
        while remaining > 0, bitCount >= 8 {
            output.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
            bitCount -= 8
            remaining -= 1
        }
        guard remaining <= input.count - position else {
            throw corrupt("a stored block of \(length) bytes goes past the end of the data")
        }
        output.append(contentsOf: input[position..<(position + remaining)])
        position += remaining
    }

    mutating func dynamicBlock() throws {
        let literalCount = try take(5) + 257
        let distanceCount = try take(5) + 1
        let lengthCodeCount = try take(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else {
            throw corrupt(
                "a dynamic block declares \(literalCount) literal/length and \(distanceCount) distance codes (at most 286 and 30)"
            )
        }
        var codeLengthLengths = [UInt8](repeating: 0, count: 19)
        for index in 0..<lengthCodeCount {
            codeLengthLengths[HuffmanCode.codeLengthOrder[index]] = UInt8(try take(3))
        }
        let lengthCode = try code(codeLengthLengths, mustBeComplete: true, "the code-length code")
        var lengths = [UInt8]()
        lengths.reserveCapacity(literalCount + distanceCount)
        while lengths.count < literalCount + distanceCount {
            let symbol = try decode(lengthCode)
            switch symbol {
            case 0...15:
                lengths.append(UInt8(symbol))
            case 16:
                guard let previous = lengths.last else {
                    throw corrupt("a dynamic block repeats a code length before giving one")
                }
                try repeatLength(previous, count: 3 + take(2), into: &lengths, total: literalCount + distanceCount)
            case 17:
                try repeatLength(0, count: 3 + take(3), into: &lengths, total: literalCount + distanceCount)
            default:
                try repeatLength(0, count: 11 + take(7), into: &lengths, total: literalCount + distanceCount)
            }
        }
        guard lengths[256] != 0 else { throw corrupt("a dynamic block has no end-of-block code") }
        let literals = try code(Array(lengths[0..<literalCount]), mustBeComplete: false, "the literal/length code")
        let distances = try code(Array(lengths[literalCount...]), mustBeComplete: false, "the distance code")
        try huffmanBlock(literals: literals, distances: distances)
    }

    func code(_ lengths: [UInt8], mustBeComplete: Bool, _ what: String) throws -> HuffmanCode {
        switch HuffmanCode.make(lengths: lengths, mustBeComplete: mustBeComplete) {
        case .success(let code): return code
        case .failure(.overSubscribed): throw corrupt("\(what) is over-subscribed (more codes than bits allow)")
        case .failure(.incomplete): throw corrupt("\(what) is incomplete (some bit patterns mean nothing)")
        }
    }

    mutating func repeatLength(_ length: UInt8, count: Int, into lengths: inout [UInt8], total: Int) throws {
        guard lengths.count + count <= total else {
            throw corrupt("a dynamic block's code lengths run past the \(total) codes it declares")
        }
        lengths.append(contentsOf: repeatElement(length, count: count))
    }

    mutating func huffmanBlock(literals: HuffmanCode, distances: HuffmanCode) throws {
        while true {
            let symbol = try decode(literals)
            if symbol < 256 {
                try reserveOutput(1)
                output.append(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let lengthIndex = symbol - 257
            guard lengthIndex < HuffmanCode.lengthBase.count else {
                throw corrupt("invalid literal/length symbol \(symbol)")
            }
            let length = HuffmanCode.lengthBase[lengthIndex] + (try take(HuffmanCode.lengthExtra[lengthIndex]))
            let distanceSymbol = try decode(distances)
            guard distanceSymbol < HuffmanCode.distanceBase.count else {
                throw corrupt("invalid distance symbol \(distanceSymbol)")
            }
            let distance =
                HuffmanCode.distanceBase[distanceSymbol] + (try take(HuffmanCode.distanceExtra[distanceSymbol]))
            guard distance <= output.count else {
                throw corrupt("a copy reaches \(distance) bytes back, but only \(output.count) were written")
            }
            try reserveOutput(length)
            var from = output.count - distance
            for _ in 0..<length {
                output.append(output[from])
                from += 1
            }
        }
    }

    /// Reads one symbol: a table lookup for codes of up to ``HuffmanCode/tableBits`` bits,
    /// otherwise a walk through the canonical code, one bit at a time.
    mutating func decode(_ code: HuffmanCode) throws -> Int {
        let entry = code.table[peek(HuffmanCode.tableBits)]
        if entry.length > 0 {
            try skip(Int(entry.length))
            return Int(entry.symbol)
        }
        var value = 0
        var first = 0
        var index = 0
        for length in 1...HuffmanCode.maximumLength {
            value |= try take(1)
            let count = code.counts[length]
            if value - first < count { return Int(code.symbols[index + value - first]) }
            index += count
            first = (first + count) << 1
            value <<= 1
        }
        throw corrupt("a Huffman code matches no symbol")
    }
}

/// A canonical Huffman code, as DEFLATE describes one by its code lengths.
private struct HuffmanCode {
    static let maximumLength = 15
    /// Codes this long or shorter are decoded with one table lookup.
    static let tableBits = 9

    struct Entry {
        var symbol: UInt16 = 0
        /// 0 for a bit pattern that starts a longer code (or no code).
        var length: UInt8 = 0
    }

    /// How many codes have each length (index 0 unused).
    let counts: [Int]
    /// The symbols ordered by code.
    let symbols: [UInt16]
    /// Indexed by the next `tableBits` input bits.
    let table: [Entry]

    /// Why a set of lengths does not make a code.
    enum Problem: Error {
        case overSubscribed
        case incomplete
    }

    /// Builds the code, or says what is wrong. An incomplete code is accepted only when allowed
    /// and made of a single one-bit code or of none (RFC 1951 allows one distance code; a block
    /// of literals only may have no distance code), as zlib does.
    static func make(lengths: [UInt8], mustBeComplete: Bool) -> Result<HuffmanCode, Problem> {
        var counts = [Int](repeating: 0, count: maximumLength + 1)
        for length in lengths { counts[Int(length)] += 1 }
        var left = 1
        for length in 1...maximumLength {
            left = (left << 1) - counts[length]
            if left < 0 { return .failure(.overSubscribed) }
        }
        let used = lengths.count - counts[0]
        if left > 0, mustBeComplete || !(used == 0 || (used == 1 && counts[1] == 1)) {
            return .failure(.incomplete)
        }
        var offsets = [Int](repeating: 0, count: maximumLength + 2)
        for length in 1...maximumLength { offsets[length + 1] = offsets[length] + counts[length] }
        var symbols = [UInt16](repeating: 0, count: used)
        var next = offsets
        for (symbol, length) in lengths.enumerated() where length > 0 {
            symbols[next[Int(length)]] = UInt16(symbol)
            next[Int(length)] += 1
        }
        var table = [Entry](repeating: Entry(), count: 1 << tableBits)
        var code = 0
        var index = 0
        for length in 1...maximumLength {
            for _ in 0..<counts[length] {
                if length <= tableBits {
                    let reversed = reverse(code, bits: length)
                    var slot = reversed
                    while slot < table.count {
                        table[slot] = Entry(symbol: symbols[index], length: UInt8(length))
                        slot += 1 << length
                    }
                }
                code += 1
                index += 1
            }
            code <<= 1
        }
        return .success(HuffmanCode(counts: counts, symbols: symbols, table: table))
    }

    static func reverse(_ value: Int, bits: Int) -> Int {
        var result = 0
        var rest = value
        for _ in 0..<bits {
            result = (result << 1) | (rest & 1)
            rest >>= 1
        }
        return result
    }

    // MARK: The fixed codes and tables of RFC 1951

    static let fixedLiterals: HuffmanCode = {
        var lengths = [UInt8](repeating: 8, count: 288)
        for symbol in 144..<256 { lengths[symbol] = 9 }
        for symbol in 256..<280 { lengths[symbol] = 7 }
        // 288 codes (286 and 287 are never valid): complete by construction.
        return try! make(lengths: lengths, mustBeComplete: true).get()
    }()

    /// 32 codes of 5 bits (30 and 31 are never valid): complete by construction.
    static let fixedDistances: HuffmanCode = try! make(
        lengths: [UInt8](repeating: 5, count: 32), mustBeComplete: true
    ).get()

    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
        6145, 8193, 12289, 16385, 24577,
    ]
    static let distanceExtra = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ]
}
