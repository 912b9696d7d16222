public import MoltCore

/// Where a piece of text (an attribute's value, an element's content) sits in its file, so
/// that a character offset in the decoded text (an expression's column) can be turned into the
/// file's line and column, through entity references (`&amp;`) and CDATA sections.
public struct TextOrigin: Sendable, Hashable {
    /// The file.
    public var file: String
    /// The 1-based line and column where the raw text starts.
    public var line: Int
    public var column: Int
    /// The raw text as written in the file.
    public var raw: String

    public init(file: String, line: Int, column: Int, raw: String) {
        self.file = file
        self.line = line
        self.column = column
        self.raw = raw
    }

    /// The file location of the character at `offset` in the decoded text.
    public func location(ofOffset offset: Int, element: String?) -> SourceLocation {
        var line = self.line
        var column = self.column
        var decoded = 0
        let characters = Array(raw)
        var index = 0
        func advance(_ count: Int) {
            for _ in 0..<count where index < characters.count {
                if characters[index] == "\n" {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
                index += 1
            }
        }
        while index < characters.count {
            if characters[index...].starts(with: "<![CDATA[") {
                advance(9)
                continue
            }
            if characters[index...].starts(with: "]]>") {
                advance(3)
                continue
            }
            if decoded >= offset { break }
            if characters[index] == "&", let end = characters[index...].firstIndex(of: ";"), end - index <= 10 {
                advance(end - index + 1)
            } else if characters[index] == "\r", index + 1 < characters.count, characters[index + 1] == "\n" {
                advance(2)
            } else {
                advance(1)
            }
            decoded += 1
        }
        return SourceLocation(file: file, line: line, column: column, element: element)
    }
}
