import Foundation
public import Molt

/// One rule of lightweight-migration inference, shown on a pair of small model versions.
///
/// Every model is valid (``ModelChecker`` finds nothing to say about it), every entity has at
/// least one attribute, and relationships have inverses, so the pairs can seed real stores.
public struct InferenceCase: Sendable, CustomStringConvertible {
    /// A short name, unique in the catalog.
    public var name: String
    /// The rule, in one line.
    public var rule: String
    /// The source version's `<entity>` elements (a body for ``ModelXML/document(_:identifier:)``).
    public var source: String
    /// The destination version's `<entity>` elements.
    public var destination: String
    /// The source version's name.
    public var sourceName: String
    /// The destination version's name.
    public var destinationName: String
    /// Whether inference must find a mapping.
    public var inferable: Bool
    /// For a refused case, text that the reasons must contain (entity, property, suggestion).
    public var reasonFragments: [String]

    public init(
        _ name: String, rule: String, source: String, destination: String, sourceName: String = "V1",
        destinationName: String = "V2", inferable: Bool = true, reasonFragments: [String] = []
    ) {
        self.name = name
        self.rule = rule
        self.source = source
        self.destination = destination
        self.sourceName = sourceName
        self.destinationName = destinationName
        self.inferable = inferable
        self.reasonFragments = reasonFragments
    }

    /// Whether the case can be used to compare two migration engines on a seeded store: every
    /// inferable case can (a refused case has no mapping to run).
    public var comparesEngines: Bool { inferable }

    public var description: String { name }

    /// The two versions as a bundle's versions, for ``ModelXML/writeBundle(_:versions:current:in:)``.
    public var versions: [(String, String)] { [(sourceName, source), (destinationName, destination)] }

    /// Reads both versions.
    public func models() throws -> (source: ObjectModel, destination: ObjectModel) {
        (try Self.model(source, name: sourceName), try Self.model(destination, name: destinationName))
    }

    /// Reads one version's entities as a model called `name`.
    public static func model(_ body: String, name: String) throws -> ObjectModel {
        try XcodeModelReader().read(
            Data(ModelXML.document(body).utf8), file: "\(name).xcdatamodel/contents", name: name)
    }
}

/// The catalog of inference rules and refusals, one case each.
///
/// Most cases change one thing in a small library model (Author ↔ Book); hierarchy cases use
/// Publication with Book and Magazine below it. Note for store seeds: in "to-many to to-one",
/// an object holding more than one related object stops the migration with an error, so a seed
/// that should migrate gives each Book at most one series.
public enum InferenceCases {
    /// The case called `name`. Traps when there is none (a mistake in a test).
    public static func named(_ name: String) -> InferenceCase {
        guard let found = all.first(where: { $0.name == name }) else { fatalError("no inference case \"\(name)\"") }
        return found
    }

    /// The cases inference must accept, for comparing migration engines.
    public static var inferable: [InferenceCase] { all.filter(\.comparesEngines) }

    public static let all: [InferenceCase] =
        attributeCases + renameCases + relationshipCases + entityCases + hierarchyCases + typeCases + compositeCases

    // MARK: Attributes

    static let attributeCases: [InferenceCase] = [
        InferenceCase(
            "add optional attribute", rule: "a new optional attribute starts empty",
            source: library(), destination: library(book: bookWith(attribute("subtitle", "String", optional: true)))),
        InferenceCase(
            "add non-optional attribute with default", rule: "a new non-optional attribute takes its default value",
            source: library(), destination: library(book: bookWith(attribute("inStock", "Boolean", default: "YES")))),
        InferenceCase(
            "remove attribute", rule: "a removed attribute's values are dropped",
            source: library(),
            destination: library(author: [attribute("name", "String", default: "Anonymous"), rating, books])),
        InferenceCase(
            "non-optional to optional", rule: "a non-optional attribute may become optional",
            source: library(),
            destination: library(book: [title, pages, attribute("price", "Double", optional: true), author])),
        InferenceCase(
            "optional to non-optional with default",
            rule: "an optional attribute may become non-optional when it has a default (empty values take it)",
            source: library(),
            destination: library(book: [title, attribute("pages", "Integer 32", default: "0"), price, author])),
        InferenceCase(
            "optional to non-optional without default",
            rule: "an optional attribute cannot become non-optional without a default",
            source: library(),
            destination: library(author: [name, attribute("born", "Date"), rating, books]), inferable: false,
            reasonFragments: ["Author.born", "became non-optional", "give it a default value"]),
        InferenceCase(
            "new non-optional attribute without default",
            rule: "a new non-optional attribute needs a default value",
            source: library(), destination: library(book: bookWith(attribute("isbn", "String"))), inferable: false,
            reasonFragments: [
                "Book.isbn", "new attribute is not optional and has no default value", "give it a default",
            ]),
    ]

    // MARK: Renames

    static let renameCases: [InferenceCase] = [
        InferenceCase(
            "rename entity, attribute and relationship",
            rule: "renaming identifiers carry an entity, an attribute and a relationship to their new names",
            source: library(),
            destination: [
                entity(
                    "Writer", renamedFrom: "Author",
                    [
                        name, born, rating,
                        toMany("works", "Book", inverse: "writer", deleteRule: "Cascade", renamedFrom: "books"),
                    ]),
                entity(
                    "Book",
                    [
                        attribute("heading", "String", default: "Untitled", renamedFrom: "title"), pages, price,
                        toOne("writer", "Writer", inverse: "works", renamedFrom: "author"),
                    ]),
            ].joined(separator: "\n")),
        InferenceCase(
            "canonical rename, v1 to v3",
            rule: "a renaming identifier kept across versions maps the first version's attribute to the latest",
            source: library(), destination: caption, sourceName: "V1", destinationName: "V3"),
        InferenceCase(
            "canonical rename, v2 to v3",
            rule: "an attribute renamed twice maps from the one with the same renaming identifier",
            source: heading, destination: caption, sourceName: "V2", destinationName: "V3"),
    ]

    /// V2 of the canonical rename: `title` became `heading` (renaming identifier `title`).
    static let heading = library(
        book: [attribute("heading", "String", default: "Untitled", renamedFrom: "title"), pages, price, author])
    /// V3: `heading` became `caption`, keeping the renaming identifier `title`.
    static let caption = library(
        book: [attribute("caption", "String", default: "Untitled", renamedFrom: "title"), pages, price, author])

    // MARK: Relationships

    static let relationshipCases: [InferenceCase] = [
        InferenceCase(
            "add relationship", rule: "a new optional relationship starts empty",
            source: library(), destination: library(author: authorWith(favorite), book: bookWith(fans))),
        InferenceCase(
            "delete relationship", rule: "a removed relationship's links are dropped",
            source: library(author: authorWith(favorite), book: bookWith(fans)), destination: library()),
        InferenceCase(
            "to-one to to-many", rule: "a to-one relationship may become to-many (its object becomes the only one)",
            source: library(book: bookWith(inSeries), more: [series(books: seriesBooks)]),
            destination: library(
                book: bookWith(toMany("series", "Series", inverse: "books")),
                more: [series(books: toMany("books", "Book", inverse: "series"))])),
        InferenceCase(
            "to-many to to-one",
            rule: "a to-many relationship may become to-one; an object holding several stops the migration",
            source: library(
                book: bookWith(toMany("series", "Series", inverse: "books")),
                more: [series(books: toMany("books", "Book", inverse: "series"))]),
            destination: library(book: bookWith(inSeries), more: [series(books: seriesBooks)])),
        InferenceCase(
            "ordered to unordered", rule: "an ordered to-many relationship may lose its order",
            source: library(
                book: bookWith(inSeries),
                more: [series(books: toMany("books", "Book", inverse: "series", ordered: true))]),
            destination: library(book: bookWith(inSeries), more: [series(books: seriesBooks)])),
        InferenceCase(
            "unordered to ordered", rule: "an unordered to-many relationship may become ordered",
            source: library(book: bookWith(inSeries), more: [series(books: seriesBooks)]),
            destination: library(
                book: bookWith(inSeries),
                more: [series(books: toMany("books", "Book", inverse: "series", ordered: true))])),
        InferenceCase(
            "relationship widened to a parent entity",
            rule: "a relationship may lead to a parent of its old entity (its objects are kinds of it)",
            source: library(book: bookWith(toOne("place", "Room", inverse: "books")), more: places(booksIn: "Room")),
            destination: library(
                book: bookWith(toOne("place", "Place", inverse: "books")), more: places(booksIn: "Place"))),
        InferenceCase(
            "many-to-many unchanged", rule: "a many-to-many relationship is kept while other things change",
            source: library(book: bookWith(toMany("tags", "Tag", inverse: "books")), more: [tag(name: name)]),
            destination: library(
                book: bookWith(
                    toMany("tags", "Tag", inverse: "books"), attribute("subtitle", "String", optional: true)),
                more: [tag(name: attribute("label", "String", default: "Anonymous", renamedFrom: "name"))])),
        InferenceCase(
            "new required relationship", rule: "a new required relationship has nothing to fill it",
            source: library(more: [series(books: nil)]),
            destination: library(
                book: bookWith(toOne("series", "Series", inverse: "books", optional: false)),
                more: [series(books: seriesBooks)]),
            inferable: false, reasonFragments: ["Book.series", "new relationship is required", "make it optional"]),
        InferenceCase(
            "relationship became required", rule: "an optional relationship cannot become required",
            source: library(),
            destination: library(book: [
                title, pages, price, toOne("author", "Author", inverse: "books", optional: false),
            ]),
            inferable: false, reasonFragments: ["Book.author", "became required", "keep it optional"]),
        InferenceCase(
            "relationship leads to an unrelated entity",
            rule: "a relationship cannot lead to an entity its old objects do not become",
            source: library(
                book: bookWith(toOne("shelf", "Shelf", inverse: "books")),
                more: [shelf(books: true), room(books: false)]),
            destination: library(
                book: bookWith(toOne("shelf", "Room", inverse: "books")),
                more: [shelf(books: false), room(books: true)]),
            inferable: false,
            reasonFragments: ["Book.shelf", "now leads to Room", "Shelf objects do not become", "write a mapping file"]),
        InferenceCase(
            "relationship narrowed to a sub-entity",
            rule: "a relationship cannot lead to a sub-entity when objects of its old entity could be in it",
            source: library(book: bookWith(toOne("place", "Place", inverse: "books")), more: places(booksIn: "Place")),
            destination: library(
                book: bookWith(toOne("place", "Room", inverse: "books")), more: places(booksIn: "Room")),
            inferable: false, reasonFragments: ["Book.place", "now leads to Room", "Place objects do not become"]),
    ]

    // MARK: Entities

    static let entityCases: [InferenceCase] = [
        InferenceCase(
            "add entity", rule: "a new entity starts with no objects",
            source: library(), destination: library(book: bookWith(publisher), more: [publisherEntity])),
        InferenceCase(
            "remove entity", rule: "a removed entity's objects are dropped",
            source: library(book: bookWith(publisher), more: [publisherEntity]), destination: library()),
        InferenceCase(
            "two destination entities from one source entity",
            rule: "one source entity cannot feed two destination entities",
            source: library(),
            destination: library(more: [
                entity("Editor", renamedFrom: "Author", [attribute("name", "String", default: "Anonymous")])
            ]),
            inferable: false,
            reasonFragments: ["Editor", "both Author and Editor come from Author", "write a mapping file"]),
        InferenceCase(
            "entity became abstract", rule: "a concrete entity cannot become abstract (its objects have nowhere to go)",
            source: authors + publications(abstract: false) + book(parent: "Publication"),
            destination: authors + publications(abstract: true) + book(parent: "Publication"),
            inferable: false, reasonFragments: ["Publication", "became abstract", "sub-entity"]),
    ]

    // MARK: Hierarchies

    static let hierarchyCases: [InferenceCase] = [
        InferenceCase(
            "new parent entity", rule: "a new parent entity may be added over an existing entity",
            source: library(),
            destination: library(
                more: [entity("Item", abstract: true, [attribute("shelfMark", "String", optional: true)])],
                bookParent: "Item")),
        InferenceCase(
            "new parent over a small hierarchy",
            rule: "a new parent entity may be added over an existing entity that has sub-entities",
            source: library(more: [ebook]),
            destination: library(
                more: [ebook, entity("Item", abstract: true, [attribute("shelfMark", "String", optional: true)])],
                bookParent: "Item")),
        InferenceCase(
            "new child entity", rule: "a new sub-entity starts with no objects",
            source: library(), destination: library(more: [ebook])),
        InferenceCase(
            "attribute moved up to parent", rule: "an attribute may move up to the parent entity",
            source: authors + publications() + book(parent: "Publication", [language])
                + magazine(parent: "Publication", [language]),
            destination: authors + publications([language]) + book(parent: "Publication")
                + magazine(parent: "Publication")),
        InferenceCase(
            "attribute moved down to child", rule: "an attribute may move down to a sub-entity",
            source: authors + publications([language]) + book(parent: "Publication") + magazine(parent: "Publication"),
            destination: authors + publications() + book(parent: "Publication", [language])
                + magazine(parent: "Publication")),
        InferenceCase(
            "entity moved out of a hierarchy",
            rule: "an entity may leave its hierarchy (inherited attributes become its own)",
            source: authors + publications() + book(parent: "Publication") + magazine(parent: "Publication"),
            destination: authors + publications() + book(parent: "Publication") + magazine(parent: nil, [title])),
        InferenceCase(
            "entity moved into a hierarchy",
            rule: "a root entity may move under an existing entity that has no other existing sub-entity",
            source: authors + publications(abstract: false, [year]) + book(parent: nil, [title])
                + magazine(parent: nil, [title]),
            destination: authors + publications(abstract: false, [year]) + book(parent: nil, [title])
                + magazine(parent: "Publication")),
        InferenceCase(
            "merging hierarchies",
            rule:
                "entities of separate hierarchies cannot come to share a parent (a root moved under an entity with other sub-entities)",
            source: authors + publications() + book(parent: "Publication") + magazine(parent: nil, [title]),
            destination: authors + publications() + book(parent: "Publication") + magazine(parent: "Publication"),
            inferable: false,
            reasonFragments: [
                "Magazine and Book", "separate hierarchies", "descend from Publication",
                "keep them in separate hierarchies",
            ]),
        InferenceCase(
            "new parent over two roots", rule: "a new parent entity cannot be added over two existing roots",
            source: authors + book(parent: nil, [title]) + magazine(parent: nil, [title]),
            destination: authors + publications() + book(parent: "Publication") + magazine(parent: "Publication"),
            inferable: false,
            reasonFragments: [
                "Magazine and Book", "separate hierarchies", "descend from Publication", "write a mapping file",
            ]),
    ]

    // MARK: Type changes

    static let typeCases: [InferenceCase] = [
        typeChange("Integer 16 to Integer 64", "edition", "Integer 16", "Integer 64", default: "1"),
        typeChange("Integer 32 to Decimal", "listPrice", "Integer 32", "Decimal", default: "0"),
        typeChange("Integer 64 to Double", "weight", "Integer 64", "Double", default: "0"),
        typeChange("Integer to String", "isbn", "Integer 64", "String", default: nil),
        typeChange("Boolean to Integer", "inPrint", "Boolean", "Integer 16", default: "YES", newDefault: "1"),
        typeChange("Float to Double", "rating", "Float", "Double", default: "0.0"),
        typeChange("String to Integer 32", "edition", "String", "Integer 32", default: nil, refused: true),
        typeChange("Integer 64 to Integer 16", "copiesSold", "Integer 64", "Integer 16", default: "0", refused: true),
        typeChange("Double to Integer 32", "weight", "Double", "Integer 32", default: "0", refused: true),
    ]

    /// A Book attribute `name` changing from `old` to `new`.
    static func typeChange(
        _ label: String, _ name: String, _ old: String, _ new: String, default value: String?,
        newDefault: String? = nil,
        refused: Bool = false
    ) -> InferenceCase {
        let optional = value == nil
        return InferenceCase(
            label,
            rule: refused
                ? "changing an attribute from \(old) to \(new) could lose or invent values"
                : "changing an attribute from \(old) to \(new) keeps every value",
            source: library(book: bookWith(attribute(name, old, optional: optional, default: value))),
            destination: library(
                book: bookWith(attribute(name, new, optional: optional, default: newDefault ?? value))),
            inferable: !refused,
            reasonFragments: refused
                ? ["Book.\(name)", "type changed from \(old) to \(new)", "write a mapping file"] : [])
    }
}

// MARK: - Model parts, written as Xcode writes them

extension InferenceCases {
    static func attribute(
        _ name: String, _ type: String, optional: Bool = false, default value: String? = nil,
        renamedFrom identifier: String? = nil
    ) -> String {
        var xml = "<attribute name=\"\(name)\"\(optional ? " optional=\"YES\"" : "") attributeType=\"\(type)\""
        if let value { xml += " defaultValueString=\"\(value)\"" }
        if ["Integer 16", "Integer 32", "Integer 64", "Double", "Float", "Boolean"].contains(type) {
            xml += " usesScalarValueType=\"YES\""
        }
        if let identifier { xml += " elementID=\"\(identifier)\"" }
        return xml + "/>"
    }

    static func toOne(
        _ name: String, _ destination: String, inverse: String, optional: Bool = true,
        renamedFrom identifier: String? = nil
    ) -> String {
        relationship(
            name, destination, inverse: inverse,
            shape: optional ? "optional=\"YES\" maxCount=\"1\"" : "minCount=\"1\" maxCount=\"1\"",
            deleteRule: "Nullify",
            identifier: identifier)
    }

    static func toMany(
        _ name: String, _ destination: String, inverse: String, ordered: Bool = false, deleteRule: String = "Nullify",
        renamedFrom identifier: String? = nil
    ) -> String {
        relationship(
            name, destination, inverse: inverse,
            shape: "optional=\"YES\" toMany=\"YES\"\(ordered ? " ordered=\"YES\"" : "")",
            deleteRule: deleteRule, identifier: identifier)
    }

    static func relationship(
        _ name: String, _ destination: String, inverse: String, shape: String, deleteRule: String, identifier: String?
    ) -> String {
        "<relationship name=\"\(name)\" \(shape) deletionRule=\"\(deleteRule)\" destinationEntity=\"\(destination)\" "
            + "inverseName=\"\(inverse)\" inverseEntity=\"\(destination)\"\(identifier.map { " elementID=\"\($0)\"" } ?? "")/>"
    }

    static func entity(
        _ name: String, parent: String? = nil, abstract: Bool = false, renamedFrom identifier: String? = nil,
        _ properties: [String]
    ) -> String {
        var head = "<entity name=\"\(name)\" representedClassName=\"\(name)\""
        if let parent { head += " parentEntity=\"\(parent)\"" }
        if abstract { head += " isAbstract=\"YES\"" }
        if let identifier { head += " elementID=\"\(identifier)\"" }
        return ([head + " syncable=\"YES\">"] + properties.map { "    " + $0 } + ["</entity>"]).joined(separator: "\n")
    }

    // The library: Author ↔ Book.

    static let name = attribute("name", "String", default: "Anonymous")
    static let born = attribute("born", "Date", optional: true)
    static let rating = attribute("rating", "Integer 16", default: "0")
    static let books = toMany("books", "Book", inverse: "author", deleteRule: "Cascade")
    static let title = attribute("title", "String", default: "Untitled")
    static let pages = attribute("pages", "Integer 32", optional: true)
    static let price = attribute("price", "Double", default: "0.0")
    static let author = toOne("author", "Author", inverse: "books")

    static func authorWith(_ extra: String...) -> [String] { [name, born, rating, books] + extra }
    static func bookWith(_ extra: String...) -> [String] { [title, pages, price, author] + extra }

    /// Author and Book (Book under `bookParent`), then `more` entities.
    static func library(
        author: [String] = authorWith(), book: [String] = bookWith(), more: [String] = [], bookParent: String? = nil
    ) -> String {
        ([entity("Author", author), entity("Book", parent: bookParent, book)] + more).joined(separator: "\n")
    }

    static let favorite = toOne("favorite", "Book", inverse: "fans")
    static let fans = toMany("fans", "Author", inverse: "favorite")
    static let inSeries = toOne("series", "Series", inverse: "books")
    static let seriesBooks = toMany("books", "Book", inverse: "series")
    static let publisher = toOne("publisher", "Publisher", inverse: "books")
    static let publisherEntity = entity(
        "Publisher",
        [
            attribute("name", "String", default: "Unknown"), attribute("founded", "Integer 16", optional: true),
            toMany("books", "Book", inverse: "publisher"),
        ])
    static let ebook = entity("Ebook", parent: "Book", [attribute("fileSize", "Integer 64", default: "0")])

    static func series(books: String?) -> String {
        entity(
            "Series",
            [attribute("name", "String", default: "Untitled series"), attribute("complete", "Boolean", default: "NO")]
                + (books.map { [$0] } ?? []))
    }

    static func tag(name: String) -> String {
        entity("Tag", [name, toMany("books", "Book", inverse: "tags")])
    }

    static func shelf(books: Bool) -> String {
        entity(
            "Shelf",
            [attribute("label", "String", default: "A1")] + (books ? [toMany("books", "Book", inverse: "shelf")] : []))
    }

    static func room(books: Bool) -> String {
        entity(
            "Room",
            [attribute("name", "String", default: "Reading room")]
                + (books ? [toMany("books", "Book", inverse: "shelf")] : []))
    }

    /// Place and its sub-entity Room; `booksIn` holds the inverse of Book.place.
    static func places(booksIn holder: String) -> [String] {
        let books = toMany("books", "Book", inverse: "place")
        return [
            entity(
                "Place", [attribute("name", "String", default: "Main library")] + (holder == "Place" ? [books] : [])),
            entity(
                "Room", parent: "Place",
                [attribute("floor", "Integer 16", default: "0")] + (holder == "Room" ? [books] : [])),
        ]
    }

    // Publications: Author ↔ Book, with Book (and Magazine) below Publication or not.

    static let language = attribute("language", "String", optional: true)
    static let year = attribute("year", "Integer 16", optional: true)
    static let authors = entity("Author", [name, born, books]) + "\n"

    static func publications(abstract: Bool = true, _ extra: [String] = []) -> String {
        entity("Publication", abstract: abstract, [title] + extra) + "\n"
    }

    static func book(parent: String?, _ extra: [String] = []) -> String {
        entity("Book", parent: parent, [pages] + extra + [author]) + "\n"
    }

    static func magazine(parent: String?, _ extra: [String] = []) -> String {
        entity("Magazine", parent: parent, [attribute("issue", "Integer 16", default: "1")] + extra) + "\n"
    }
}
