/// One token of expression text, with where it starts.
struct Token: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// A name: a key, a keyword (case-insensitive) or a function name.
        case identifier(String)
        /// `#name`: a key that would otherwise be read as a keyword.
        case escapedIdentifier(String)
        /// `$name`.
        case variable(String)
        case string(String)
        /// A number as written (sign not included).
        case number(String)
        /// Punctuation and operators: `( ) { } [ ] , . : @ + - * / ** == = != <> < <= =< > >= => && || !`.
        case symbol(String)
        case end
    }

    let kind: Kind
    /// Offset of the token's first character in the text.
    let offset: Int
}
