internal import Foundation
internal import MoltCore

/// Where a keyed archive sits in an `xcmapping.xml` and what it holds, so that every problem
/// found in it names the file, the line of its `<attribute>`, the entity mapping and the
/// property.
struct ArchivePlace {
    /// The `<attribute>` holding the archive.
    var location: SourceLocation
    /// The entity mapping's name.
    var mapping: String
    /// The property mapping's name, for a value expression.
    var property: String?
    /// What the archive is, as the subject of messages: "the value expression"…
    var subject: String
    /// The attribute's name ("valueexpressiondata"), which names the archive in messages.
    var field: String

    /// An error about the archive: "`subject` `message`", at this place.
    func error(_ message: String, recovery: String? = nil) -> MoltError {
        MoltError(
            .fileReadCorruptFile, "\(subject) \(message)", location: location, entity: mapping, property: property,
            recovery: recovery)
    }

    /// Runs `body`; an error from it that says nothing of where it happened (the property-list
    /// and keyed-archive readers know only the archive's name) gets this place.
    func locating<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as MoltError {
            throw error.located(location).about(entity: mapping, property: property)
        }
    }

    /// The keyed archive in `data`.
    func archive(_ data: Data) throws -> KeyedArchive {
        try locating { try KeyedArchive(data: data, name: field) }
    }
}
