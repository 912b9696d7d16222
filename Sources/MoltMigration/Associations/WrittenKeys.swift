/// The keys the copy pass wrote into one foreign-key column of new rows (``ForeignKeyAtInsert``),
/// as bits: a million keys take 125 KB. A key the bits cannot hold (negative, or past
/// ``KeptKeyIndex/keyLimit``) makes the set unusable, and the relate pass then writes the
/// column itself.
struct WrittenKeys {
    private(set) var usable = true
    private(set) var count = 0
    private var bits: [UInt64] = []

    mutating func insert(_ key: Int64) {
        guard usable else { return }
        guard key >= 0, key < KeptKeyIndex.keyLimit else {
            usable = false
            bits = []
            return
        }
        let word = Int(key >> 6)
        if word >= bits.count {
            bits.append(contentsOf: repeatElement(0, count: max(word + 1 - bits.count, bits.count)))
        }
        let bit: UInt64 = 1 << UInt64(key & 63)
        if bits[word] & bit == 0 { count += 1 }
        bits[word] |= bit
    }

    /// Marks the set unusable (a row's link could not be worked out).
    mutating func giveUp() {
        usable = false
        bits = []
    }

    /// Whether `contains` holds for every key in the set.
    func allSatisfy(_ contains: (Int64) -> Bool) -> Bool {
        for (word, value) in bits.enumerated() {
            var remaining = value
            while remaining != 0 {
                guard contains(Int64(word) << 6 + Int64(remaining.trailingZeroBitCount)) else { return false }
                remaining &= remaining - 1
            }
        }
        return true
    }
}
