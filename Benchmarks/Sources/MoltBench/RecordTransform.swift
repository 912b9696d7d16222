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

    /// Each Record's work depends on that Record alone, and the policy keeps no state.
    override class var createsInstancesConcurrently: Bool { true }

    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        _ = try Self.transform(source, manager: manager)
    }

    /// The measure's work for one Record: the destination Record, made and associated.
    static func transform(_ source: SourceObject, manager: MigrationManager) throws -> DestinationObject {
        var values: [String: ExpressionValue] = [:]
        for key in Self.copied { values[key] = try source.value(key) }
        if case .string(let name) = values["name"] { values["title"] = .string(RecordTransform.title(name)) }
        if case .date(let created) = values["created"] {
            values["day"] = .string(RecordTransform.day(created.timeIntervalSinceReferenceDate))
        }
        if case .string(let note) = try source.value("note") { values["note"] = .string(RecordTransform.note(note)) }
        let made = try manager.destinationContext.insertNewObject(forEntityName: "Record", attributes: values)
        try manager.associate(source: source, destination: made)
        return made
    }
}

/// The transform, plus what a ported policy typically adds per object: a key the source row
/// holds (as a post holds its author's id) used to fetch a destination object by an indexed
/// attribute, set as the new object's to-one. Here the Record's owner Tag is found by its label
/// (the generator gives Record *i* the owner `Tag (i mod tags) + 1`, and `code` = *i* × 1,000,003).
/// The job's extra time over the transform's is the fetch's and the link's.
final class BenchLookupPolicy: EntityMigrationPolicy {
    private var tags = 0

    required init() {}

    override func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {
        tags = try manager.destinationContext.count(for: FetchRequest(entityName: "Tag"))
    }

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let made = try BenchTransformPolicy.transform(source, manager: manager)
        guard case .integer(let code) = try source.value("code"), tags > 0 else { return }
        let label = "Tag \(Int(code / 1_000_003) % tags + 1)"
        var request = FetchRequest(entityName: "Tag")
        request.predicate = ObjectPredicate(format: "label == %@", label)
        request.fetchLimit = 1
        guard let tag = try manager.destinationContext.fetch(request).first else {
            throw RawDatabase.Failure(description: "no destination Tag labelled \(label)")
        }
        try manager.destinationContext.setValue(tag, forKey: "owner", of: made)
    }
}

/// The transform, then in `end` a tenth of the Records deleted (each one's owner and tags
/// links nullified on the Tags' side), found with one fetch: the job's extra time over the
/// transform's is the fetch and the deletes.
final class BenchDeletePolicy: EntityMigrationPolicy {
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        _ = try BenchTransformPolicy.transform(source, manager: manager)
    }

    override func end(_ mapping: EntityMapping, manager: MigrationManager) throws {
        // Codes are the generator's index × 1,000,003: the lowest tenth of them.
        var request = FetchRequest(entityName: "Record")
        let records = try manager.destinationContext.count(for: request)
        request.predicate = ObjectPredicate(format: "code < %@", Int64(records / 10) * 1_000_003)
        let doomed = try manager.destinationContext.fetch(request)
        try manager.destinationContext.delete(doomed)
        manager.userInfo["deleted"] = doomed.count
    }
}
