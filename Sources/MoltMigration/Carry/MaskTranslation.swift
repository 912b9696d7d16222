internal import Foundation
internal import MoltStore

/// How the masks of changed properties of one source entity's history updates become masks of
/// the destination entity its objects became (``HistoryColumnMask`` on each side).
///
/// As Core Data's `NSPersistentHistoryMigrateUpdates` does, a mask is decoded with the source
/// entity into property names and encoded with the destination entity: a property keeps its
/// bit wherever the new version puts it, a removed property's bit is dropped, a new property
/// has none. A mask too short for the source entity names nothing, and becomes a mask of the
/// destination's length with no bit set (Core Data's result too).
///
/// Beyond Core Data, which matches names only: where the mapping says which source property a
/// destination property is carried from (``origins``: a renaming identifier, `$source.old`
/// for an attribute, a relationship's default value over `$source.old`), the destination
/// property takes that property's bit, so a renamed property stays changed under its new name.
/// Any other destination property takes the bit of the source property of its own name
/// (Core Data's rule).
struct MaskTranslation {
    let source: HistoryColumnMask
    let destination: HistoryColumnMask
    /// Destination property → the source property it is carried from, where the mapping says.
    let origins: [String: String]

    /// The source property whose bit `property` of the destination takes.
    func origin(of property: String) -> String {
        origins[property] ?? property
    }

    /// Whether some mask changes: the bits stand for other properties, or a property is
    /// carried from another one.
    var changesMasks: Bool {
        source.columns != destination.columns || destination.properties.contains { origin(of: $0) != $0 }
    }

    func translate(_ mask: Data) -> Data {
        let changed = Set(source.properties(in: mask) ?? [])
        return destination.mask(for: destination.properties.filter { changed.contains(origin(of: $0)) })
    }
}
