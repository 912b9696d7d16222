/// Core Data's names for tables, columns and indexes: every naming rule in one place.
///
/// Checked against real stores: `Z` + uppercased name for entity tables and property columns;
/// `<TABLE>_<COLUMN>_INDEX` for a to-one column's index; join tables and their columns
/// (`Z_1BOOKS(Z_1AUTHORS, Z_2BOOKS)` and the self-referential `Z_2BLOCKING(Z_2BLOCKEDBY,
/// Z_2BLOCKING)`) with the reverse index `<TABLE>_<SECOND COLUMN>_INDEX`.
/// Not checked, chosen by Molt and documented in the "Reading Apple's files" article of
/// `Sources/Molt/Molt.docc`: the suffix rule for clashing names (`ZTITLE`, `ZTITLE1`…, first
/// come first named), order columns, the join table of a to-many relationship without an
/// inverse, and fetch-index names.
enum ColumnNaming {
    /// `Z` + the uppercased name: the table of an inheritance root, or a property's column.
    static func table(forRootEntity name: String) -> String {
        "Z" + name.uppercased()
    }

    static func column(forProperty name: String) -> String {
        "Z" + name.uppercased()
    }

    /// The extra column beside a to-one column whose destination has sub-entities; it holds
    /// the destination's entity number: `Z<destination number>_<NAME>`.
    static func entityColumn(destinationNumber: Int, relationship name: String) -> String {
        "Z\(destinationNumber)_" + name.uppercased()
    }

    /// A to-one column's index: `<TABLE>_<COLUMN>_INDEX`.
    static func index(table: String, column: String) -> String {
        "\(table)_\(column)_INDEX"
    }

    /// A join table, named from the relationship that names it and its entity's number:
    /// `Z_<number><NAME>`.
    static func joinTable(entityNumber: Int, relationship name: String) -> String {
        "Z_\(entityNumber)" + name.uppercased()
    }

    /// A join-table column: named from an entity's number and the relationship that points at
    /// that entity (the column holds that entity's keys): `Z_<number><NAME>`.
    static func joinColumn(entityNumber: Int, relationship name: String) -> String {
        "Z_\(entityNumber)" + name.uppercased()
    }

    /// Which of two many-to-many relationships names the join table. Both real examples
    /// (`Author.books`/`Book.authors` → `Z_1BOOKS`, `blocking`/`blockedBy` → `Z_2BLOCKING`) fit
    /// "the one whose name sorts last"; nothing else is known. Ties (a relationship that is
    /// its own inverse) go to the first.
    static func namesJoinTable(_ a: String, over b: String) -> Bool {
        !a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// The order column of an ordered to-many relationship: `Z_FOK_` + the name of the column
    /// that holds the keys it orders, without its leading `Z` (`ZOWNER` → `Z_FOK_OWNER`,
    /// `Z_2BOOKS` → `Z_FOK_2BOOKS`).
    static func orderColumn(orderingKeysIn column: String) -> String {
        var rest = Substring(column)
        if rest.hasPrefix("Z_") { rest = rest.dropFirst(2) } else if rest.hasPrefix("Z") { rest = rest.dropFirst() }
        return "Z_FOK_" + rest
    }

    /// A fetch index's name: `Z_<Entity>_<index name>`.
    static func fetchIndex(entity: String, index: String) -> String {
        "Z_\(entity)_\(index)"
    }
}

/// Hands out names that are unique within a scope (a table's columns, or all table names),
/// giving clashing names numeric suffixes: `ZTITLE`, `ZTITLE1`, `ZTITLE2`. Comparison ignores
/// case, as SQLite does for identifiers.
struct NameUniquifier {
    private var taken: Set<String>

    init(reserved: [String] = []) {
        taken = Set(reserved.map { $0.uppercased() })
    }

    mutating func claim(_ base: String) -> String {
        if taken.insert(base.uppercased()).inserted { return base }
        var suffix = 1
        while !taken.insert((base + "\(suffix)").uppercased()).inserted { suffix += 1 }
        return base + "\(suffix)"
    }
}
