/// The keys the copy pass wrote into one foreign-key column of new rows (``KeyAtInsert``),
/// as bits (``KeyBits``). A key the bits cannot hold (negative, or past
/// ``KeptKeyIndex/keyLimit``) makes the set unusable, and the relate pass then writes the
/// column itself.
struct WrittenKeys {
    private(set) var usable = true
    private(set) var count = 0
    private var bits = KeyBits()

    mutating func insert(_ key: Int64) {
        guard usable else { return }
        guard key >= 0, key < KeptKeyIndex.keyLimit else { return giveUp() }
        if bits.insert(key) { count += 1 }
    }

    /// Marks the set unusable (a row's link could not be worked out).
    mutating func giveUp() {
        usable = false
        bits = KeyBits()
    }

    /// Whether `contains` holds for every key in the set.
    func allSatisfy(_ contains: (Int64) -> Bool) -> Bool {
        var all = true
        bits.forEachKey { key in
            all = contains(key)
            return all
        }
        return all
    }
}
