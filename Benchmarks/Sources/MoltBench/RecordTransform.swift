import Foundation
import Molt

/// The per-object work of the transform measure, shared by the policy and the hand-written
/// loop so both do exactly the same string and date work: a trimmed, capitalised `title` from
/// `name`, an ISO `day` from `created`, and `note` in lower case.
enum RecordTransform {
    nonisolated(unsafe) static let dayFormatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter
    }()

    static func title(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespaces).capitalized
    }

    /// `created` is Core Data's timestamp: seconds since 2001-01-01.
    static func day(_ created: Double) -> String {
        dayFormatter.string(from: Date(timeIntervalSinceReferenceDate: created))
    }

    static func note(_ note: String) -> String { note.lowercased() }
}

/// The transform measure's compiled policy: one destination Record per source Record, every
/// attribute carried over and three computed; relationships as the mapping infers them.
final class BenchTransformPolicy: EntityMigrationPolicy {
    static let copied = ["name", "count", "amount", "created", "flag", "code", "ratio"]

    init() {}

    func createDestinationInstances(
        forSource source: SourceObject, mapping: EntityMapping, manager: MigrationManager
    ) throws {
        var values: [String: ExpressionValue] = [:]
        for key in Self.copied { values[key] = try source.value(key) }
        if case .string(let name) = values["name"] { values["title"] = .string(RecordTransform.title(name)) }
        if case .date(let created) = values["created"] {
            values["day"] = .string(RecordTransform.day(created.timeIntervalSinceReferenceDate))
        }
        if case .string(let note) = try source.value("note") { values["note"] = .string(RecordTransform.note(note)) }
        let made = try manager.createDestinationObject(entity: "Record", attributes: values)
        try manager.associate(source: source, destination: made)
    }
}
