/// The raw text of a file, for finding where an element's attribute value or content starts
/// (libxml2 gives each element's line, not the position of its attribute values).
struct SourceText {
    let file: String
    private let lines: [[Character]]

    init(file: String, text: String) {
        self.file = file
        var result: [[Character]] = []
        var current: [Character] = []
        for character in text {
            if character == "\n" || character == "\r\n" {
                current.append("\n")
                result.append(current)
                current = []
            } else {
                current.append(character)
            }
        }
        result.append(current)
        lines = result
    }

    /// The characters from (`line`, `column`), both 1-based, to the end of the file (lazily).
    private func characters(from line: Int, column: Int) -> some Sequence<(Character, Int, Int)> {
        var lineIndex = line - 1
        var columnIndex = column - 1
        return AnySequence {
            AnyIterator<(Character, Int, Int)> {
                while lineIndex < lines.count {
                    if lineIndex >= 0, columnIndex < lines[lineIndex].count {
                        let result = (lines[lineIndex][columnIndex], lineIndex + 1, columnIndex + 1)
                        columnIndex += 1
                        return result
                    }
                    lineIndex += 1
                    columnIndex = 0
                }
                return nil
            }
        }
    }

    /// Finds the start tag `<element` beginning on `line` (the `ordinal`-th one of that name on
    /// the line) and returns the position just after the name.
    private func startTag(_ element: String, line: Int, ordinal: Int) -> (line: Int, column: Int)? {
        guard line >= 1, line <= lines.count else { return nil }
        let target = Array("<" + element)
        let text = lines[line - 1]
        var seen = 0
        var index = 0
        while index + target.count <= text.count {
            if Array(text[index..<(index + target.count)]) == target {
                let next = index + target.count < text.count ? text[index + target.count] : "\n"
                if next.isWhitespace || next == ">" || next == "/" {
                    if seen == ordinal { return (line, index + target.count + 1) }
                    seen += 1
                }
            }
            index += 1
        }
        return nil
    }

    /// Where the value of `attribute` of the element starts, and its raw text.
    func attributeValue(_ attribute: String, of element: String, line: Int, ordinal: Int) -> TextOrigin? {
        guard let start = startTag(element, line: line, ordinal: ordinal) else { return nil }
        var recent = ""
        var quote: Character?
        var raw = ""
        var valueStart: (Int, Int)?
        for (character, lineNumber, column) in characters(from: start.line, column: start.column) {
            if let open = quote {
                if character == open {
                    if let valueStart {
                        return TextOrigin(file: file, line: valueStart.0, column: valueStart.1, raw: raw)
                    }
                    quote = nil
                    continue
                }
                if valueStart != nil { raw.append(character) }
                continue
            }
            if character == ">" { return nil }
            if character == "\"" || character == "'" {
                // A value starts: is it the wanted attribute's (`name =` just before)?
                var name = Substring(recent)
                while name.last?.isWhitespace == true { name = name.dropLast() }
                var wanted = false
                if name.last == "=" {
                    name = name.dropLast()
                    while name.last?.isWhitespace == true { name = name.dropLast() }
                    let word = name.split(whereSeparator: { $0.isWhitespace }).last.map(String.init)
                    wanted = word == attribute
                }
                quote = character
                valueStart = wanted ? (lineNumber, column + 1) : nil
                raw = ""
                recent = ""
                continue
            }
            recent.append(character)
        }
        return nil
    }

    /// Where the content of the element starts (after its start tag), and its raw text up to
    /// the end tag.
    func content(of element: String, line: Int, ordinal: Int) -> TextOrigin? {
        guard let start = startTag(element, line: line, ordinal: ordinal) else { return nil }
        var inTag = true
        var quote: Character?
        // Read once, in linear time: each character is looked at a bounded number of times.
        var raw: [Character] = []
        var contentStart: (Int, Int)?
        let endTag = Array("</" + element)
        let cdataOpen = Array("<![CDATA[")
        let cdataClose = Array("]]>")
        var openedCDATA = false
        var closedCDATA = false
        func ends(with suffix: [Character]) -> Bool {
            raw.count >= suffix.count && raw[(raw.count - suffix.count)...].elementsEqual(suffix)
        }
        for (character, lineNumber, column) in characters(from: start.line, column: start.column) {
            if inTag {
                if let open = quote {
                    if character == open { quote = nil }
                } else if character == "\"" || character == "'" {
                    quote = character
                } else if character == ">" {
                    inTag = false
                    contentStart = (lineNumber, column + 1)
                }
                continue
            }
            raw.append(character)
            if !openedCDATA, ends(with: cdataOpen) { openedCDATA = true }
            if openedCDATA, !closedCDATA, ends(with: cdataClose) { closedCDATA = true }
            // An end tag inside a CDATA section that is still open is text.
            if ends(with: endTag), !openedCDATA || closedCDATA {
                raw.removeLast(endTag.count)
                guard let contentStart else { return nil }
                return TextOrigin(file: file, line: contentStart.0, column: contentStart.1, raw: String(raw))
            }
        }
        return nil
    }
}
