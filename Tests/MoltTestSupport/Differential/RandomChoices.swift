/// Choices made with the project's seeded ``SplitMix`` generator, for the differential generator.
extension SplitMix {
    /// True `percent` times in a hundred.
    public mutating func chance(_ percent: Int) -> Bool {
        next(below: 100) < percent
    }

    /// One of `items` (which must not be empty).
    public mutating func pick<T>(_ items: [T]) -> T {
        items[next(below: items.count)]
    }

    /// One of `items`, or nil when there is none.
    public mutating func pickIfAny<T>(_ items: [T]) -> T? {
        items.isEmpty ? nil : items[next(below: items.count)]
    }

    /// A number in `range`.
    public mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + next(below: range.count)
    }

    /// The seed of an independent generator for the part `part` of the case `seed` (so that
    /// changing how one part is generated does not change the others).
    public static func subSeed(_ seed: UInt64, _ part: UInt64) -> UInt64 {
        var mixer = SplitMix(seed: seed &* 0x2545_F491_4F6C_DD1D &+ part)
        return mixer.next()
    }
}
