public import MoltModel

/// The attribute type changes inference accepts: those where every value of the old type has
/// exactly one value in the new type, so the conversion makes no choice (and, but for one
/// documented row, loses nothing).
///
/// | from | to | the new value |
/// |---|---|---|
/// | Integer 16 | Integer 32, Integer 64 | the same integer |
/// | Integer 32 | Integer 64 | the same integer |
/// | Integer 16, Integer 32 | Double | the same number (a Double holds every such integer exactly) |
/// | Integer 64 | Double | the nearest Double: the same number up to 2^53 (9,007,199,254,740,992) |
/// | Integer 16, Integer 32, Integer 64 | Decimal | the same number |
/// | Integer 16, Integer 32, Integer 64 | String | its decimal digits, `-` first when negative (`string($source.x)`) |
/// | Boolean | Integer 16, Integer 32, Integer 64 | 1 for true, 0 for false |
/// | Float | Double | the same number (a Double holds every Float exactly) |
/// | URI | String | the URI's text |
/// | Transformable | Binary | the bytes the store holds (the archived value) |
///
/// Integer 64 → Double is the one row where a value can change: integers beyond 2^53 round to
/// the nearest Double. Core Data's own inference accepts the change and real models rely on it
/// (WooCommerce's Model 87 → 88 turns an Integer 64 amount into a Double), so Molt accepts it
/// too.
///
/// Everything else is refused, with a reason saying to write a mapping file with an explicit
/// value. Among the refusals: narrowing an integer (Integer 64 → Integer 16) or turning a number
/// with a fraction into an integer (Double → Integer 32) loses values; text to a number
/// (String → Integer 32) fails on text that is not one; Float, Double, Decimal, Boolean or UUID
/// to String needs a choice of spelling (`1`, `1.0` or `1e0`; `true`, `YES` or `1`; upper or
/// lower case) that a mapping file should make with `string()`; Binary → Transformable gives
/// bytes the value transformer may not decode; nothing becomes a Date, a UUID or a Boolean.
public enum TypeChanges {
    /// Whether inference accepts changing an attribute from `old` to `new`.
    public static func isSafe(from old: AttributeType, to new: AttributeType) -> Bool {
        if old == new { return true }
        switch (old, new) {
        case (.integer16, .integer32), (.integer16, .integer64), (.integer32, .integer64): return true
        case (.integer16, .double), (.integer32, .double), (.integer64, .double): return true
        case (.integer16, .decimal), (.integer32, .decimal), (.integer64, .decimal): return true
        case (.integer16, .string), (.integer32, .string), (.integer64, .string): return true
        case (.boolean, .integer16), (.boolean, .integer32), (.boolean, .integer64): return true
        case (.float, .double): return true
        case (.uri, .string): return true
        case (.transformable, .binary): return true
        default: return false
        }
    }

    /// Whether a changed value needs an explicit conversion in the mapping: an integer stored in
    /// a String attribute goes through `string()` (the store takes every other safe change as
    /// it is).
    static func needsConversion(from old: AttributeType, to new: AttributeType) -> Bool {
        old.isInteger && new == .string
    }
}
