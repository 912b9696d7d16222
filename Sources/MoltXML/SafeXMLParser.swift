internal import CLibXML2
package import Foundation
internal import MoltCore

/// Parses XML from untrusted files with libxml2, safely.
///
/// - No network (`XML_PARSE_NONET`), no external entities, no external DTD, no XInclude.
/// - A document that declares anything in an internal DTD subset (entities, elements,
///   attributes, notations) is refused at the first declaration, before it can be used; this
///   stops entity-expansion bombs and external-entity reads. A DOCTYPE line without an internal
///   subset, such as Apple's standard plist DOCTYPE, is accepted and never fetched.
/// - libxml2's own limits stay on (no `XML_PARSE_HUGE`): nesting deeper than 256 elements is an
///   error. An element's text over ``maximumTextSize`` is an error too (libxml2 lets long text
///   through when it comes in many pieces). Files over ``maximumFileSize`` are not read.
/// - Every libxml2 message is collected with its line and column; nothing is printed.
package struct SafeXMLParser {
    /// The largest file accepted, in bytes.
    package var maximumFileSize: Int = 64 * 1024 * 1024
    /// The longest text of one element or attribute accepted, in bytes.
    package var maximumTextSize: Int = 10 * 1024 * 1024

    package init() {}

    /// Reads and parses the file at `url`. `displayName` (default: the path) names it in errors.
    package func parse(
        contentsOf url: URL, displayName: String? = nil, schema: XMLSchema? = nil
    ) throws
        -> ParsedDocument
    {
        let name = displayName ?? url.path
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            if let size = attributes[.size] as? Int, size > maximumFileSize {
                throw MoltError(
                    .fileReadCorruptFile,
                    "the file is \(size) bytes, more than the \(maximumFileSize) accepted",
                    location: SourceLocation(file: name))
            }
            data = try Data(contentsOf: url)
        } catch let error as MoltError {
            throw error
        } catch {
            throw FileErrors.readFailed(name, underlying: error)
        }
        return try parse(data, file: name, schema: schema)
    }

    /// Parses `data`; `file` names it in errors. With a `schema`, the document must also be
    /// valid against it; otherwise ``XMLValidationFailure`` lists every violation.
    package func parse(_ data: Data, file: String, schema: XMLSchema? = nil) throws -> ParsedDocument {
        guard data.count <= maximumFileSize else {
            throw MoltError(
                .fileReadCorruptFile,
                "the document is \(data.count) bytes, more than the \(maximumFileSize) accepted",
                location: SourceLocation(file: file))
        }
        guard data.count <= Int(Int32.max) else {
            throw MoltError(.fileReadCorruptFile, "the document is too large", location: SourceLocation(file: file))
        }
        LibXML2.initializeOnce()
        molt_xml_silence_generic_errors()

        guard let context = xmlNewParserCtxt() else {
            throw MoltError(.fileReadUnknown, "libxml2 could not create a parser", location: SourceLocation(file: file))
        }
        defer { xmlFreeParserCtxt(context) }

        let collector = XMLErrorCollector(file: file)
        let unmanagedCollector = Unmanaged.passRetained(collector)
        defer { unmanagedCollector.release() }
        context.pointee._private = unmanagedCollector.toOpaque()
        xmlSetStructuredErrorFunc(unmanagedCollector.toOpaque(), collectStructuredError)
        defer { xmlSetStructuredErrorFunc(nil, nil) }
        Self.refuseDeclarations(in: context)

        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_BIG_LINES.rawValue)
        // Fed through a read callback rather than as one block of memory: libxml2 then lets go of
        // what it has parsed, and its limit on how far it looks ahead (10 MB without
        // XML_PARSE_HUGE) applies to one token, not to the distance from the start of the file
        // ("Huge input lookup" on valid files over 10 MB with long lines).
        let input = Unmanaged.passRetained(XMLInput(data))
        defer { input.release() }
        let document: xmlDocPtr? = xmlCtxtReadIO(
            context,
            { context, buffer, length in
                guard let context, let buffer, length >= 0 else { return -1 }
                return Unmanaged<XMLInput>.fromOpaque(context).takeUnretainedValue().read(into: buffer, Int(length))
            }, nil, input.toOpaque(), file, nil, options)
        defer { if let document { xmlFreeDoc(document) } }

        if var error = collector.firstError {
            // Some libxml2 errors (a failed encoding conversion) carry no line: use where the
            // parser stopped.
            if error.location?.line == nil {
                error.location?.line = max(1, context.pointee.input.map { Int($0.pointee.line) } ?? 1)
            }
            throw error
        }
        guard let document, context.pointee.wellFormed != 0, let root = xmlDocGetRootElement(document) else {
            throw MoltError(
                .fileReadCorruptFile, "the document is not well-formed XML",
                location: SourceLocation(file: file, line: 1))
        }
        if let schema {
            let violations = try schema.validate(document, file: file)
            if !violations.isEmpty { throw XMLValidationFailure(file: file, violations: violations) }
        }
        return ParsedDocument(root: try copy(root, file: file), file: file)
    }

    // MARK: Refusing DTD declarations

    private static func refuseDeclarations(in context: xmlParserCtxtPtr) {
        guard let sax = context.pointee.sax else { return }
        sax.pointee.entityDecl = { context, name, _, _, _, _ in
            SafeXMLParser.refuse("declares the entity \"\(SafeXMLParser.string(name))\"", context)
        }
        sax.pointee.unparsedEntityDecl = { context, name, _, _, _ in
            SafeXMLParser.refuse("declares the entity \"\(SafeXMLParser.string(name))\"", context)
        }
        sax.pointee.elementDecl = { context, name, _, _ in
            SafeXMLParser.refuse("declares the element type \"\(SafeXMLParser.string(name))\"", context)
        }
        sax.pointee.attributeDecl = { context, element, name, _, _, _, tree in
            if let tree { xmlFreeEnumeration(tree) }
            SafeXMLParser.refuse(
                "declares the attribute \"\(SafeXMLParser.string(name))\" of \"\(SafeXMLParser.string(element))\"",
                context)
        }
        sax.pointee.notationDecl = { context, name, _, _ in
            SafeXMLParser.refuse("declares the notation \"\(SafeXMLParser.string(name))\"", context)
        }
    }

    /// Records why a document is refused and stops the parser at once.
    private static func refuse(_ what: String, _ userData: UnsafeMutableRawPointer?) {
        guard let userData else { return }
        let context = userData.assumingMemoryBound(to: xmlParserCtxt.self)
        let line = context.pointee.input.map { Int($0.pointee.line) }
        if let collectorPointer = context.pointee._private {
            let collector = Unmanaged<XMLErrorCollector>.fromOpaque(collectorPointer).takeUnretainedValue()
            collector.record(
                MoltError(
                    .fileReadCorruptFile,
                    "the document \(what) in its DOCTYPE; Molt does not accept DTD declarations",
                    location: SourceLocation(file: collector.file, line: line, element: "!DOCTYPE"),
                    recovery: "Remove the internal DTD subset (the part in [ ] after <!DOCTYPE …>)."))
        }
        xmlStopParser(context)
    }

    // MARK: Copying the tree out

    private func copy(_ node: xmlNodePtr, file: String) throws -> ParsedElement {
        var element = ParsedElement(
            name: Self.string(node.pointee.name),
            line: Int(xmlGetLineNo(node)))
        func checkSize(_ text: String) throws {
            guard text.utf8.count > maximumTextSize else { return }
            throw MoltError(
                .fileReadCorruptFile,
                "the text of <\(element.name)> is \(text.utf8.count) bytes, more than the \(maximumTextSize) accepted",
                location: SourceLocation(file: file, line: element.line, element: element.name))
        }
        var attribute = node.pointee.properties
        while let current = attribute {
            let value = Self.text(of: current.pointee.children)
            try checkSize(value)
            element.attributes[Self.string(current.pointee.name)] = value
            attribute = current.pointee.next
        }
        var text = ""
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE:
                element.children.append(try copy(current, file: file))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content { text += String(cString: content) }
                try checkSize(text)
            default:
                break  // comments, processing instructions
            }
            child = current.pointee.next
        }
        element.text = text
        return element
    }

    /// The text of a run of text nodes (an attribute's value).
    private static func text(of first: xmlNodePtr?) -> String {
        var result = ""
        var node = first
        while let current = node {
            if let content = current.pointee.content { result += String(cString: content) }
            node = current.pointee.next
        }
        return result
    }

    fileprivate static func string(_ pointer: UnsafePointer<xmlChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer)
    }
}

/// The bytes a parse reads, handed to libxml2 a piece at a time.
private final class XMLInput {
    private let data: Data
    private var offset = 0

    init(_ data: Data) {
        self.data = data
    }

    func read(into buffer: UnsafeMutablePointer<CChar>, _ length: Int) -> Int32 {
        let count = min(length, data.count - offset)
        guard count > 0 else { return 0 }
        data.withUnsafeBytes { raw in
            UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return Int32(count)
    }
}

/// Collects libxml2's structured errors for one parse.
final class XMLErrorCollector {
    let file: String
    /// What the messages are about: "malformed XML", or a schema violation.
    let prefix: String
    private(set) var errors: [MoltError] = []

    init(file: String, prefix: String = "malformed XML") {
        self.file = file
        self.prefix = prefix
    }

    func record(_ error: MoltError) {
        errors.append(error)
    }

    /// The first fatal problem, which is the one worth showing.
    var firstError: MoltError? { errors.first }
}

/// libxml2's structured error callback: turns an `xmlError` into a ``MoltError`` with file,
/// line, column and element. Warnings are ignored.
func collectStructuredError(_ userData: UnsafeMutableRawPointer?, _ error: xmlErrorPtr?) {
    guard let userData, let error else { return }
    let collector = Unmanaged<XMLErrorCollector>.fromOpaque(userData).takeUnretainedValue()
    guard error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
    var message = error.pointee.message.map { String(cString: $0) } ?? "unknown XML error"
    // One line (libxml2 adds lines such as "Bytes: 0xFF 0xFE"), in words a Molt user can act on.
    message = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }.joined(separator: " ")
    if message.hasPrefix("Excessive depth in document") {
        message = "the document exceeds the maximum depth of 256 nested elements"
    }
    var prefix = "\(collector.prefix): "
    if message.contains("huge text node") || message.contains("Huge input lookup") {
        // libxml2's limit on one text node, attribute value or token (10 MB): Molt's own.
        prefix = ""
        message = "a text or attribute value is more than the 10485760 bytes accepted"
    }
    if let first = message.first { message = first.lowercased() + message.dropFirst() }
    var line = error.pointee.line > 0 ? Int(error.pointee.line) : nil
    let column = error.pointee.int2 > 0 ? Int(error.pointee.int2) : nil
    var element: String?
    if let node = error.pointee.node?.assumingMemoryBound(to: xmlNode.self), node.pointee.type == XML_ELEMENT_NODE {
        element = node.pointee.name.map { String(cString: $0) }
        if line == nil { line = Int(xmlGetLineNo(node)) }
    }
    collector.record(
        MoltError(
            .fileReadCorruptFile, prefix + message,
            location: SourceLocation(file: collector.file, line: line, column: column, element: element)))
}

/// libxml2's process-wide set-up, done once.
enum LibXML2 {
    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    static func initializeOnce() {
        _ = initialized
    }
}
