package import MoltCore

/// An XML element copied out of libxml2: name, attributes, child elements, text and the line
/// it starts on. No libxml2 pointer survives parsing; a parsed tree is a plain Swift value.
package struct ParsedElement: Sendable, Hashable {
    /// The element's local name (without a namespace prefix).
    package var name: String
    /// The attributes, by name. Attribute order carries no meaning in XML.
    package var attributes: [String: String]
    /// The child elements in document order.
    package var children: [ParsedElement]
    /// The element's own text (text and CDATA children, concatenated), not its descendants'.
    package var text: String
    /// The 1-based line on which the element's start tag is.
    package var line: Int

    package init(
        name: String, attributes: [String: String] = [:], children: [ParsedElement] = [],
        text: String = "", line: Int = 0
    ) {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
        self.line = line
    }

    /// The value of the attribute `name`, if present.
    package subscript(attribute name: String) -> String? {
        attributes[name]
    }

    /// The child elements called `name`, in order.
    package func children(named name: String) -> [ParsedElement] {
        children.filter { $0.name == name }
    }

    /// The first child element called `name`.
    package func child(named name: String) -> ParsedElement? {
        children.first { $0.name == name }
    }
}

/// A parsed XML file: its root element and the file name used in messages.
package struct ParsedDocument: Sendable {
    package var root: ParsedElement
    /// The file's path as shown in messages.
    package var file: String

    package init(root: ParsedElement, file: String) {
        self.root = root
        self.file = file
    }

    /// The location of `element` in this document, for errors and diagnostics.
    package func location(of element: ParsedElement) -> SourceLocation {
        SourceLocation(file: file, line: element.line, element: element.name)
    }
}
