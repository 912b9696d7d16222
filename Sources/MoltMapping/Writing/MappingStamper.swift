internal import Foundation
internal import MoltCore
public import MoltModel

/// Records the source and destination entities' version hashes in a mapping file
/// (`source-hash`, `destination-hash`), editing only the `<entity-mapping>` start tags so the
/// file keeps its comments and layout. Once stamped, `check-mapping` reports any later change
/// to those entities in the models.
///
/// ```swift
/// let stamped = try MappingStamper().stamp(text, file: "Blog-to-Blog2.xml", source: v1, destination: v2)
/// ```
public struct MappingStamper {
    public init() {}

    /// The file's text with every entity mapping's hashes set from the models. Throws when the
    /// file has errors (stamping a broken file would hide them).
    public func stamp(_ text: String, file: String, source: ObjectModel, destination: ObjectModel) throws -> String {
        let (model, problems) = MappingReader().read(Data(text.utf8), file: file)
        if let first = problems.errors.first {
            throw MoltError(
                .fileReadCorruptFile, "the mapping file has errors; fix them before stamping: \(first.message)",
                location: first.location)
        }
        guard let model else {
            throw MoltError(
                .fileReadCorruptFile, "the mapping file cannot be read", location: SourceLocation(file: file))
        }
        let sourceHashes = try source.entityVersionHashes()
        let destinationHashes = try destination.entityVersionHashes()
        var lines = text.components(separatedBy: "\n")
        var seenOnLine: [Int: Int] = [:]
        // Edit from the last mapping to the first, so earlier positions stay valid.
        var edits: [(line: Int, ordinal: Int, attributes: [(String, String?)])] = []
        for mapping in model.entityMappings {
            guard let line = mapping.location?.line else { continue }
            let ordinal = seenOnLine[line, default: 0]
            seenOnLine[line] = ordinal + 1
            edits.append(
                (
                    line, ordinal,
                    [
                        ("source-hash", mapping.sourceEntityName.flatMap { sourceHashes[$0]?.hexString }),
                        (
                            "destination-hash",
                            mapping.destinationEntityName.flatMap { destinationHashes[$0]?.hexString }
                        ),
                    ]
                ))
        }
        for edit in edits.reversed() {
            try Self.setAttributes(
                edit.attributes, inTagAt: edit.line, ordinal: edit.ordinal, lines: &lines, file: file)
        }
        return lines.joined(separator: "\n")
    }

    /// Sets (or removes, for nil values) attributes of the `ordinal`-th `<entity-mapping` start
    /// tag that begins on `line`, which may span several lines.
    static func setAttributes(
        _ attributes: [(String, String?)], inTagAt line: Int, ordinal: Int, lines: inout [String], file: String
    ) throws {
        let marker = "<entity-mapping"
        var text = lines[(line - 1)...].joined(separator: "\n")
        var searchFrom = text.startIndex
        var start: String.Index?
        for _ in 0...ordinal {
            guard let found = text.range(of: marker, range: searchFrom..<text.endIndex) else { break }
            start = found.lowerBound
            searchFrom = found.upperBound
        }
        guard let start, let end = tagEnd(in: text, from: start) else {
            throw MoltError(
                .fileReadCorruptFile, "cannot find the entity mapping's start tag",
                location: SourceLocation(file: file, line: line))
        }
        var tag = String(text[start..<end])
        for (name, _) in attributes {
            // Drop an existing value: ` name="…"` or ` name='…'`.
            if let range = tag.range(of: #"\s+\#(name)\s*=\s*("[^"]*"|'[^']*')"#, options: .regularExpression) {
                tag.removeSubrange(range)
            }
        }
        let additions = attributes.compactMap { name, value in value.map { " \(name)=\"\($0)\"" } }.joined()
        let closing = tag.hasSuffix("/>") ? 2 : 1
        tag.insert(contentsOf: additions, at: tag.index(tag.endIndex, offsetBy: -closing))
        text.replaceSubrange(start..<end, with: tag)
        lines.replaceSubrange((line - 1)..., with: text.components(separatedBy: "\n"))
    }

    /// The index just after the `>` that closes the tag starting at `start` (quotes respected).
    static func tagEnd(in text: String, from start: String.Index) -> String.Index? {
        var quote: Character?
        var index = start
        while index < text.endIndex {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == ">" {
                return text.index(after: index)
            }
            index = text.index(after: index)
        }
        return nil
    }
}
