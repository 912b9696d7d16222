/// Molt's JSON format for objects ("molt-objects", version 1): what `molt create --seed`
/// reads and `molt dump --json` writes. A dump is a valid seed.
///
/// ```json
/// {
///   "entities": {
///     "Author": [
///       { "@id": "Author/1", "books": ["Book/1"], "name": "Ann" }
///     ],
///     "Book": [
///       { "@id": "Book/1", "authors": ["Author/1"], "title": "Molt" }
///     ]
///   },
///   "format": "molt-objects",
///   "version": 1
/// }
/// ```
///
/// - Objects are listed under their own (concrete) entity; abstract entities have none.
/// - `@id` names an object so relationships can refer to it. Any text works in a seed; an id of
///   the form `Entity/N` whose entity is the object's own also fixes its primary key to N.
///   A dump writes every object's id in that form, so a dump re-created and dumped again is
///   byte-identical.
/// - Every other key is an attribute or relationship name. A missing attribute takes the
///   model's default value (or none); `null` means no value. A to-one is an id or `null`; a
///   to-many is an array of ids, in order for ordered relationships. Giving both sides of a
///   relationship is allowed; they must agree.
/// - A dump writes every object's every stored property, keys in byte order, objects by
///   primary key, entities by name, unordered to-manys sorted by entity then key.
public enum ObjectsJSON {
    public static let formatName = "molt-objects"
    public static let formatVersion = 1
}
