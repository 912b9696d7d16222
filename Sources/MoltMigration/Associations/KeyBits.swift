/// A set of non-negative primary keys as bits, one per key up to the largest: a million keys
/// take 125 KB. ``KeptKeyIndex`` and ``WrittenKeys`` keep their keys in one.
struct KeyBits {
    private var words: [UInt64] = []

    /// Adds `key` (non-negative); true when it was not there.
    @discardableResult
    mutating func insert(_ key: Int64) -> Bool {
        let word = Int(key >> 6)
        if word >= words.count {
            words.append(contentsOf: repeatElement(0, count: max(word + 1 - words.count, words.count)))
        }
        let bit: UInt64 = 1 << UInt64(key & 63)
        defer { words[word] |= bit }
        return words[word] & bit == 0
    }

    func contains(_ key: Int64) -> Bool {
        key >= 0 && Int(key >> 6) < words.count && words[Int(key >> 6)] & (1 << UInt64(key & 63)) != 0
    }

    /// Takes `key` out; true when it was there.
    @discardableResult
    mutating func remove(_ key: Int64) -> Bool {
        guard contains(key) else { return false }
        words[Int(key >> 6)] &= ~(1 << UInt64(key & 63))
        return true
    }

    /// Calls `body` with each key from `start` on, in order, while it returns true.
    func forEachKey(from start: Int64 = 0, _ body: (Int64) throws -> Bool) rethrows {
        guard start >= 0, start < Int64(words.count) * 64 else { return }
        var word = Int(start >> 6)
        var remaining = words[word] & (~0 << UInt64(start & 63))
        while true {
            while remaining != 0 {
                guard try body(Int64(word) << 6 + Int64(remaining.trailingZeroBitCount)) else { return }
                remaining &= remaining - 1
            }
            word += 1
            guard word < words.count else { return }
            remaining = words[word]
        }
    }
}
