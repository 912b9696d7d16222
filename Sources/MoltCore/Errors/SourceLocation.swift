/// A place in an input file: the file, and where known the line, column and XML element.
///
/// Printed the way compilers print locations, so editors can jump to it:
/// `Blog.xcdatamodel/contents:12:5: <attribute>`.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file's path as the user gave it (or as Molt found it inside a bundle).
    public var file: String
    /// 1-based line number, when known.
    public var line: Int?
    /// 1-based column number, when known.
    public var column: Int?
    /// The XML element (without angle brackets) or other named thing at that place.
    public var element: String?

    public init(file: String, line: Int? = nil, column: Int? = nil, element: String? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.element = element
    }

    public var description: String {
        var text = file
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        if let element { text += ": <\(element)>" }
        return text
    }
}
