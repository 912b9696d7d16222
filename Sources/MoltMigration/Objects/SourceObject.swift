internal import Foundation
internal import MoltCore
public import MoltMapping
public import MoltStore

/// An object of the source store, seen through the source model by key (never the app's own
/// classes). Relationships give further source objects.
///
/// ```swift
/// let name = try source.text("name")
/// for address in try source.objects("addresses") { … }
/// ```
public struct SourceObject {
    /// What has been read of the object: every attribute and to-one relationship, and its
    /// to-many relationships when `complete`. An object reached from another (a post's tag) is
    /// read without them, so a tag shared by thousands of posts is not read with all of its
    /// posts each time a post asks for its name.
    let read: StoredObject
    let complete: Bool
    let reader: any SourceReading

    init(stored: StoredObject, complete: Bool = true, reader: any SourceReading) {
        self.read = stored
        self.complete = complete
        self.reader = reader
    }

    public var id: ObjectID { read.id }
    /// The object's entity in the source model.
    public var entity: String { read.id.entity }

    /// The object as stored: every attribute and relationship. To-many relationships not read
    /// yet are read now; ``value(_:)`` and ``objects(_:)`` read only the one asked for.
    public var stored: StoredObject {
        get throws {
            var full = read
            if !complete {
                guard let all = try reader.completeSourceObject(read.id) else {
                    throw MoltError(.sourceStore, "the source object \(read.id) does not exist")
                }
                full = all
            }
            // Objects a policy deleted from the source context are no longer related to it
            // (nor, if it was deleted itself, is it to any by a relationship with an inverse).
            full.relationships = reader.relationshipsAsHeld(full)
            return full
        }
    }

    /// The value of an attribute, or the related object(s) of a relationship as
    /// ``/MoltMapping/ExpressionValue/object(_:)`` or ``/MoltMapping/ExpressionValue/collection(_:)``.
    public func value(_ key: String) throws -> ExpressionValue {
        // A value read is the attribute's, as the resolver would answer from this object.
        if let value = read.attributes[key] { return ExpressionValue(value) }
        return try reader.sourceValue(of: key, on: read.id)
    }

    /// An attribute's value as text, or nil.
    public func text(_ key: String) throws -> String? {
        switch try value(key) {
        case .string(let text), .uri(let text): return text
        case .null: return nil
        case let other: return try Conversion.describe(other)
        }
    }

    /// The related source objects of a relationship (none, one or many).
    public func objects(_ relationship: String) throws -> [SourceObject] {
        let references: [ExpressionValue]
        switch try value(relationship) {
        case .null: references = []
        case .collection(let items): references = items
        case let single: references = [single]
        }
        return try references.compactMap { reference in
            guard case .object(let object) = reference else { return nil }
            return try reader.sourceObject(object.id)
        }
    }
}

/// An object of the destination store, made by this migration.
public struct DestinationObject: Hashable, Sendable {
    public let id: ObjectID

    public init(id: ObjectID) {
        self.id = id
    }

    /// The object's entity in the destination model.
    public var entity: String { id.entity }
}

enum Conversion {
    static func describe(_ value: ExpressionValue) throws -> String {
        switch value {
        case .integer(let number): String(number)
        case .double(let number): number.description
        case .decimal(let number): number.description
        case .bool(let flag): flag ? "true" : "false"
        case .uuid(let uuid): uuid.uuidString
        case .date(let date): date.formatted(.iso8601)
        default: "\(value)"
        }
    }
}
