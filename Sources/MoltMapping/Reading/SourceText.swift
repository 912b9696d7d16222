import Foundation

/// The raw text of a file, for finding where an element's attribute value or content starts
/// (libxml2 gives each element's line, not the position of its attribute values).
///
/// Held as the file's UTF-8 bytes (the caller's, shared) with the offset where each line starts
/// (a 60 MB mapping file took 1 GB as arrays of characters). Markup is ASCII, so it
/// is found byte by byte; columns are counted in characters, as an editor shows them, from the
/// line's start or from the last position asked about on the same line, so reading the elements
/// of a file in order stays linear even when the whole file is one line.
final class SourceText: @unchecked Sendable {
    let file: String
    /// The file's bytes, shared with the caller's `Data` (not copied), indexed from 0.
    private let bytes: Data
    /// The byte offset where each line starts (line 1 at index 0).
    private let lineStarts: [Int]
    /// The last start tag found for each element name and line: its ordinal on the line and the
    /// offset just after its name.
    private var lastTag: [String: (ordinal: Int, after: Int)] = [:]
    /// The last column counted: line, byte offset, and its 1-based column in characters.
    private var lastColumn: (line: Int, offset: Int, column: Int) = (0, 0, 1)

    init(file: String, data: Data) {
        self.file = file
        bytes = data.startIndex == 0 ? data : Data(data)
        var starts = [0]
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") { starts.append(offset + 1) }
        lineStarts = starts
    }

    private static let lessThan = UInt8(ascii: "<")
    private static let greaterThan = UInt8(ascii: ">")
    private static let newline = UInt8(ascii: "\n")

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private func lineEnd(_ line: Int) -> Int {
        line < lineStarts.count ? lineStarts[line] : bytes.count
    }

    /// The 1-based column, in characters, of `offset` on `line`.
    private func column(of offset: Int, line: Int) -> Int {
        var from = lineStarts[line - 1]
        var column = 1
        if lastColumn.line == line, lastColumn.offset <= offset {
            from = lastColumn.offset
            column = lastColumn.column
        }
        column += String(decoding: bytes[from..<offset], as: UTF8.self).count
        lastColumn = (line, offset, column)
        return column
    }

    /// Finds the start tag `<element` beginning on `line` (the `ordinal`-th one of that name on
    /// the line) and returns the offset just after the name.
    private func startTag(_ element: String, line: Int, ordinal: Int) -> Int? {
        guard line >= 1, line <= lineStarts.count else { return nil }
        let target = [Self.lessThan] + Array(element.utf8)
        let key = "\(element)@\(line)"
        var seen = 0
        var index = lineStarts[line - 1]
        if let last = lastTag[key], last.ordinal < ordinal {
            seen = last.ordinal + 1
            index = last.after
        }
        let end = lineEnd(line)
        while index + target.count <= end {
            if bytes[index] == Self.lessThan, bytes[index..<(index + target.count)].elementsEqual(target) {
                let next = index + target.count < bytes.count ? bytes[index + target.count] : Self.newline
                if Self.isSpace(next) || next == Self.greaterThan || next == UInt8(ascii: "/") {
                    if seen == ordinal {
                        lastTag[key] = (ordinal, index + target.count)
                        return index + target.count
                    }
                    seen += 1
                }
            }
            index += 1
        }
        return nil
    }

    /// The line (1-based) the byte at `offset` is on, at or after `line`.
    private func line(of offset: Int, from line: Int) -> Int {
        var line = line
        while line < lineStarts.count, lineStarts[line] <= offset { line += 1 }
        return line
    }

    /// Where the value of `attribute` of the element starts, and its raw text.
    func attributeValue(_ attribute: String, of element: String, line: Int, ordinal: Int) -> TextOrigin? {
        guard let start = startTag(element, line: line, ordinal: ordinal) else { return nil }
        let wanted = Array(attribute.utf8)
        var index = start
        var nameStart = start
        var currentLine = line
        while index < bytes.count {
            let byte = bytes[index]
            if byte == Self.greaterThan { return nil }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                // A value starts: is it the wanted attribute's (`name =` just before)?
                var end = index
                while end > nameStart, Self.isSpace(bytes[end - 1]) { end -= 1 }
                var isWanted = false
                if end > nameStart, bytes[end - 1] == UInt8(ascii: "=") {
                    end -= 1
                    while end > nameStart, Self.isSpace(bytes[end - 1]) { end -= 1 }
                    var begin = end
                    while begin > nameStart, !Self.isSpace(bytes[begin - 1]) { begin -= 1 }
                    isWanted = bytes[begin..<end].elementsEqual(wanted)
                }
                guard let close = bytes[(index + 1)...].firstIndex(of: byte) else { return nil }
                if isWanted {
                    let valueLine = self.line(of: index, from: currentLine)
                    return TextOrigin(
                        file: file, line: valueLine, column: column(of: index + 1, line: valueLine),
                        raw: String(decoding: bytes[(index + 1)..<close], as: UTF8.self))
                }
                currentLine = self.line(of: close, from: currentLine)
                index = close + 1
                nameStart = index
                continue
            }
            index += 1
        }
        return nil
    }

    /// Where the content of the element starts (after its start tag), and its raw text up to
    /// the end tag.
    func content(of element: String, line: Int, ordinal: Int) -> TextOrigin? {
        guard let start = startTag(element, line: line, ordinal: ordinal) else { return nil }
        // The rest of the start tag, its quoted values skipped.
        var index = start
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == Self.greaterThan {
                break
            }
        }
        let contentStart = index
        let endTag = Array("</\(element)".utf8)
        let cdataOpen = Array("<![CDATA[".utf8)
        let cdataClose = Array("]]>".utf8)
        var inCDATA = false
        while index < bytes.count {
            if inCDATA {
                if bytes[index...].starts(with: cdataClose) {
                    inCDATA = false
                    index += cdataClose.count
                } else {
                    index += 1
                }
                continue
            }
            if bytes[index...].starts(with: cdataOpen) {
                inCDATA = true
                index += cdataOpen.count
                continue
            }
            // An end tag inside a CDATA section that is still open is text.
            if bytes[index...].starts(with: endTag) {
                let contentLine = self.line(of: contentStart, from: line)
                return TextOrigin(
                    file: file, line: contentLine, column: column(of: contentStart, line: contentLine),
                    raw: String(decoding: bytes[contentStart..<index], as: UTF8.self))
            }
            index += 1
        }
        return nil
    }
}
