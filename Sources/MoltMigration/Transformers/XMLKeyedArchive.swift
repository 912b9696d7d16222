internal import Foundation
internal import MoltCore
internal import MoltXML

/// Keyed archives written as XML property lists (`NSKeyedArchiver` with the XML output format),
/// whose references are `<dict><key>CF$UID</key><integer>n</integer></dict>`.
enum XMLKeyedArchive {
    /// The archive in `data` when it is an XML property list; nil when it does not look like one.
    static func read(_ data: Data, name: String = "the archived value") throws -> KeyedArchive? {
        guard looksLikeXML(data) else { return nil }
        do {
            let document = try SafeXMLParser().parse(data, file: name)
            return try KeyedArchive(references(in: try XMLPropertyListReader().read(document)), name: name)
        } catch var error as MoltError {
            error.code = .coderReadCorrupt
            throw error
        }
    }

    /// Whether the bytes start (after white space) with `<`, as XML does.
    static func looksLikeXML(_ data: Data) -> Bool {
        var bytes = data.prefix(64)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "<")
    }

    /// `value` with every `{CF$UID: n}` dictionary turned into a reference. The XML reader
    /// bounds the nesting, so the recursion is bounded too.
    static func references(in value: PropertyList) -> PropertyList {
        switch value {
        case .dictionary(let entries):
            if entries.count == 1, let number = entries["CF$UID"]?.integerValue, number >= 0 {
                return .uid(UInt64(number))
            }
            return .dictionary(entries.mapValues(references(in:)))
        case .array(let items):
            return .array(items.map(references(in:)))
        default:
            return value
        }
    }
}
