internal import Foundation
internal import MoltCore
internal import MoltModel

/// Writes every object of a store in Molt's canonical JSON (see ``ObjectsJSON``), one batch
/// at a time, so a store of any size is dumped in constant memory.
///
/// ```swift
/// var text = ""
/// try ObjectsJSONExporter().export(store) { text += $0 }
/// ```
public struct ObjectsJSONExporter {
    /// Objects read per query.
    public var batchSize = 500

    public init() {}

    /// Writes the JSON text to `output`, in chunks.
    public func export(_ store: ObjectStore, to output: (String) throws -> Void) throws {
        var buffer = ""
        func emit(_ text: String) throws {
            buffer += text
            if buffer.utf8.count >= 64 * 1024 {
                try output(buffer)
                buffer = ""
            }
        }
        try emit("{\n  \"entities\": {")
        let entities = store.layout.entities.filter { !$0.isAbstract }.sorted { NameOrder.precedes($0.name, $1.name) }
        for (entityOffset, entity) in entities.enumerated() {
            try emit(entityOffset == 0 ? "\n" : ",\n")
            try emit("    \(JSONText.quoted(entity.name)): [")
            let cursor = try store.objects(of: entity.name, includingSubentities: false, batchSize: batchSize)
            var first = true
            while let batch = try cursor.nextBatch() {
                for object in batch {
                    try emit(first ? "\n" : ",\n")
                    first = false
                    try emit(Self.text(of: object, layout: entity))
                }
            }
            try emit(first ? "]" : "\n    ]")
        }
        try emit(entities.isEmpty ? "},\n" : "\n  },\n")
        try emit(
            "  \"format\": \(JSONText.quoted(ObjectsJSON.formatName)),\n  \"version\": \(ObjectsJSON.formatVersion)\n}\n"
        )
        try output(buffer)
    }

    /// Exports into a string (for small stores and tests).
    public func exportString(_ store: ObjectStore) throws -> String {
        var text = ""
        try export(store) { text += $0 }
        return text
    }

    /// One object, indented for its place in the document.
    static func text(of object: StoredObject, layout: EntityLayout) -> String {
        var fields: [(String, String)] = [("@id", JSONText.quoted(object.id.description))]
        let composites = CompositeJSON()
        for column in layout.attributes {
            let text = object.attributes[column.attribute.name]?.jsonText ?? "null"
            if column.attribute.isCompositeLeaf {
                composites.add(path: column.attribute.name, text: text)
            } else {
                fields.append((column.attribute.name, text))
            }
        }
        fields += composites.fields
        for link in layout.relationships {
            let name = link.relationship.name
            switch object.relationships[name] {
            case .toOne(let id)?:
                fields.append((name, id.map { JSONText.quoted($0.description) } ?? "null"))
            case .toMany(let ids)?:
                let items = ids.map { "          " + JSONText.quoted($0.description) }
                fields.append((name, items.isEmpty ? "[]" : "[\n" + items.joined(separator: ",\n") + "\n        ]"))
            case nil:
                fields.append((name, link.relationship.isToMany ? "[]" : "null"))
            }
        }
        fields.sort { NameOrder.precedes($0.0, $1.0) }
        let body = fields.map { "        \(JSONText.quoted($0.0)): \($0.1)" }.joined(separator: ",\n")
        return "      {\n" + body + "\n      }"
    }
}
