public import Foundation
internal import MoltCore

/// What the column of an attribute with external storage (`allowsExternalBinaryDataStorage`)
/// holds: the value itself, or the name of the file in `.<Store>_SUPPORT/_EXTERNAL_DATA/` that
/// holds it.
///
/// | stored bytes | meaning |
/// |---|---|
/// | `01` value… | the value is in the row: every byte after the first |
/// | `02` name… `00` | the value is the file `name` (ASCII, a UUID string) in `_EXTERNAL_DATA` |
/// | NULL | no value |
///
/// Where this comes from: Apple documents only that such a value "may be stored in a file
/// external to the persistent store" and the folder's place; the byte layout above is what
/// people who looked inside stores report (one marker byte, then the data or the file's name).
/// No real store with external data was available to check it, so Molt is strict: any other
/// first byte, a name that is not a plain file name, or a missing file is an error naming the
/// object and attribute, never a guess. Attributes without external storage hold their bytes
/// as they are, with no marker.
public enum ExternalBinaryColumn: Sendable, Hashable {
    case inline(Data)
    case file(String)

    /// The first byte of a value kept in the row.
    public static let inlineMarker: UInt8 = 0x01
    /// The first byte of a reference to a file.
    public static let fileMarker: UInt8 = 0x02
    /// The longest file name accepted (a UUID string has 36 characters).
    public static let maximumNameLength = 255

    /// Reads what a column holds. Throws for bytes that are neither form.
    public static func decode(_ bytes: Data) throws -> ExternalBinaryColumn {
        guard let marker = bytes.first else {
            throw MoltError(
                .persistentStoreInvalidType, "an empty value is stored where external storage needs a marker byte")
        }
        let rest = bytes.dropFirst()
        switch marker {
        case inlineMarker:
            return .inline(Data(rest))
        case fileMarker:
            var nameBytes = rest
            if nameBytes.last == 0 { nameBytes = nameBytes.dropLast() }
            guard let name = String(bytes: nameBytes, encoding: .ascii), isPlainFileName(name) else {
                throw MoltError(
                    .persistentStoreInvalidType,
                    "the external-data reference \(describe(rest)) is not a plain file name")
            }
            return .file(name)
        default:
            throw MoltError(
                .persistentStoreInvalidType,
                "the value starts with the byte 0x\(String(marker, radix: 16, uppercase: true)), which is neither "
                    + "external storage's in-row marker (0x01) nor its file marker (0x02)")
        }
    }

    /// The bytes to store.
    public var encoded: Data {
        switch self {
        case .inline(let value):
            var bytes = Data(capacity: value.count + 1)
            bytes.append(Self.inlineMarker)
            bytes.append(value)
            return bytes
        case .file(let name):
            var bytes = Data([Self.fileMarker])
            bytes.append(contentsOf: Array(name.utf8))
            bytes.append(0)
            return bytes
        }
    }

    /// A name that can only mean a file directly inside `_EXTERNAL_DATA`: letters, digits, `-`,
    /// `_` and `.`, not starting with `.`, at most ``maximumNameLength`` characters. A hostile
    /// store cannot make Molt read `../../anything`.
    public static func isPlainFileName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= maximumNameLength, name.first != "." else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x5F || byte == 0x2E
        }
    }

    private static func describe(_ bytes: Data.SubSequence) -> String {
        let shown = bytes.prefix(40).map { byte in
            (0x20..<0x7F).contains(byte) && byte != 0x22 ? String(UnicodeScalar(byte)) : "\\x" + hex(byte)
        }
        return "\"" + shown.joined() + (bytes.count > 40 ? "…" : "") + "\""
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}
