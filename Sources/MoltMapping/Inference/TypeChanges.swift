public import MoltModel

/// The attribute type changes inference accepts, because every value of the old type has one
/// exact value of the new type:
///
/// | from | to |
/// |---|---|
/// | Integer 16 | Integer 32, Integer 64 |
/// | Integer 32 | Integer 64 |
/// | Integer 16/32/64 | Double, Decimal, String |
/// | Float | Double, String |
/// | Double, Decimal | String |
/// | Boolean | Integer 16/32/64, String |
/// | UUID, URI | String |
/// | Transformable | Binary (the stored bytes), and back |
///
/// Every other change (narrowing integers, text to numbers or dates, anything to Boolean…) could
/// lose or invent data: inference refuses it and says to write a mapping with an explicit value.
public enum TypeChanges {
    /// Whether inference accepts changing an attribute from `old` to `new`.
    public static func isSafe(from old: AttributeType, to new: AttributeType) -> Bool {
        if old == new { return true }
        switch (old, new) {
        case (.integer16, .integer32), (.integer16, .integer64), (.integer32, .integer64): return true
        case (.integer16, .double), (.integer32, .double), (.integer64, .double): return true
        case (.integer16, .decimal), (.integer32, .decimal), (.integer64, .decimal): return true
        case (.float, .double): return true
        case (.boolean, .integer16), (.boolean, .integer32), (.boolean, .integer64): return true
        case (.transformable, .binary), (.binary, .transformable): return true
        case (_, .string):
            return [.integer16, .integer32, .integer64, .float, .double, .decimal, .boolean, .uuid, .uri].contains(old)
        default: return false
        }
    }

    /// Whether a changed value needs an explicit conversion in the mapping (values that the
    /// store would not convert by themselves: anything into text).
    static func needsConversion(from old: AttributeType, to new: AttributeType) -> Bool {
        old != new && new == .string
    }
}
