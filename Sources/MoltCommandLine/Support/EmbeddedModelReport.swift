import Foundation
import Molt

/// What `molt inspect` says about a store's embedded model (`Z_MODELCACHE`): its entities with
/// their property counts, and whether its hashes match the store. A cache that cannot be read
/// is reported, not fatal: inspecting a store never fails because of it.
struct EmbeddedModelReport: Encodable {
    struct EntityRow: Encodable {
        var name: String
        var parent: String?
        var isAbstract: Bool
        var attributes: Int
        /// How many of the attributes are composites (SwiftData's struct properties).
        var compositeAttributes: Int
        var relationships: Int
    }

    var compressedSize: Int?
    var archiveSize: Int?
    var matchesStore: Bool?
    /// "compatible", or how the hashes differ.
    var compatibility: String?
    var entities: [EntityRow] = []
    var notes: [String] = []
    /// Why the cache could not be read.
    var error: String?

    init(store: SQLiteStore) {
        do {
            guard let embedded = try store.embeddedModel() else {
                error = "the store has no embedded model"
                return
            }
            compressedSize = embedded.compressedSize
            archiveSize = embedded.archiveSize
            matchesStore = embedded.matchesStore
            compatibility = embedded.compatibility.description
            notes = embedded.notes
            entities = embedded.model.entities.map { entity in
                EntityRow(
                    name: entity.name, parent: entity.parentName, isAbstract: entity.isAbstract,
                    attributes: entity.attributes.count,
                    compositeAttributes: entity.attributes.filter { $0.type == .composite }.count,
                    relationships: entity.relationships.count)
            }
        } catch {
            self.error = (error as? MoltError)?.message ?? String(describing: error)
        }
    }

    func printText() {
        guard let compressedSize, let archiveSize, let matchesStore else {
            Output.line("Embedded:     not readable: \(error ?? "unknown error")")
            return
        }
        let hashes =
            matchesStore ? "its hashes match the store" : "its hashes do not match the store (\(compatibility ?? ""))"
        Output.line(
            "Embedded:     \(entities.count) entit\(entities.count == 1 ? "y" : "ies") (\(compressedSize) bytes, \(archiveSize) inflated); \(hashes)"
        )
        Output.table(
            [["ENTITY", "PARENT", "ATTRIBUTES", "RELATIONSHIPS"]]
                + entities.map { row in
                    [
                        row.name + (row.isAbstract ? " (abstract)" : ""), row.parent ?? "-",
                        String(row.attributes)
                            + (row.compositeAttributes > 0 ? " (\(row.compositeAttributes) composite)" : ""),
                        String(row.relationships),
                    ]
                }
        ).forEach { Output.line($0) }
        for note in notes { Output.line("  note: \(note)") }
    }
}
