import Foundation
import MoltCore
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// ``ObjectWriter/setLinks(_:_:)`` sets one relationship of many owners at once, reading what
/// the owners held before as one key range when they lie close together: the owners between
/// them that the batch does not name (and their links) must be left as they are, in every
/// storage (a foreign key in the owner's row, in the targets' rows, a join table).
@Suite("Relationships set for a batch of owners")
struct LinkBatchTests {
    static let model = """
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="authors" inverseEntity="Tag"/>
        </entity>
        <entity name="Book" representedClassName="Book" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
        </entity>
        <entity name="Tag" representedClassName="Tag" syncable="YES">
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="authors" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Author" inverseName="tags" inverseEntity="Author"/>
        </entity>
        """

    /// Six authors, twelve books and five tags; the authors the batches skip (2 and 4) hold
    /// books and tags, and so do some the batches name.
    static func seeded(_ model: ObjectModel, in folder: TemporaryDirectory, name: String) throws -> URL {
        let url = folder.path(name)
        _ = try ObjectStore.create(at: url, model: model) { writer in
            let authors = try (1...6).map { try writer.insert("Author", attributes: ["name": .string("A\($0)")]) }
            let books = try (1...12).map { try writer.insert("Book", attributes: ["title": .string("B\($0)")]) }
            let tags = try (1...5).map { try writer.insert("Tag", attributes: ["label": .string("T\($0)")]) }
            try writer.setToMany(authors[1], "books", to: [books[0], books[1]])
            try writer.setToMany(authors[3], "books", to: [books[2], books[3]])
            try writer.setToMany(authors[2], "books", to: [books[4]])
            try writer.setToMany(authors[1], "tags", to: [tags[0], tags[1]])
            try writer.setToMany(authors[3], "tags", to: [tags[2]])
            try writer.setToMany(authors[4], "tags", to: [tags[1]])
            try writer.setToOne(books[7], "author", to: authors[5])
        }
        return url
    }

    /// The batches, in the writer's terms: (relationship, owner, targets).
    static func batches(_ id: (String, Int) -> ObjectID) -> [(String, [(ObjectID, [ObjectID])])] {
        [
            // Inverse foreign keys (the books' `author`): owners 1, 3, 5 around 2 and 4.
            (
                "books",
                [
                    (id("Author", 1), [id("Book", 6)]), (id("Author", 3), [id("Book", 7), id("Book", 5)]),
                    (id("Author", 5), []),
                ]
            ),
            // A join table.
            (
                "tags",
                [
                    (id("Author", 1), [id("Tag", 3)]), (id("Author", 3), [id("Tag", 1), id("Tag", 4)]),
                    (id("Author", 5), []),
                ]
            ),
            // A foreign key in the owners' rows: books 7 and 9 around 8, which has an author.
            ("author", [(id("Book", 7), [id("Author", 2)]), (id("Book", 9), [id("Author", 6)])]),
        ]
    }

    @Test("owners between those of the batch keep their links, as when each owner is set in turn")
    func ownersInBetweenKeepTheirLinks() throws {
        let model = try TestStores.model(Self.model)
        let folder = TemporaryDirectory("molt-link-batches")
        let id = { (entity: String, key: Int) in ObjectID(entity: entity, primaryKey: Int64(key)) }

        let batched = try Self.open(try Self.seeded(model, in: folder, name: "batched.sqlite"), model)
        try batched.write { writer in
            for (relationship, owners) in Self.batches(id) {
                try writer.setLinks(relationship, owners.map { LinkAssignment(owner: $0.0, targets: $0.1) })
            }
        }
        let inTurn = try Self.open(try Self.seeded(model, in: folder, name: "in-turn.sqlite"), model)
        try inTurn.write { writer in
            for (relationship, owners) in Self.batches(id) {
                for (owner, targets) in owners {
                    if relationship == "author" {
                        try writer.setToOne(owner, relationship, to: targets.first)
                    } else {
                        try writer.setToMany(owner, relationship, to: targets)
                    }
                }
            }
        }
        let expected = try Self.links(inTurn)
        #expect(try Self.links(batched) == expected)
        // What the batches must not touch, spelled out.
        #expect(expected.contains("Author/2 books [Book/1, Book/2, Book/7]"))
        #expect(expected.contains("Author/4 books [Book/3, Book/4]"))
        #expect(expected.contains("Author/2 tags [Tag/1, Tag/2]"))
        #expect(expected.contains("Author/4 tags [Tag/3]"))
        #expect(expected.contains("Book/8 author Author/6"))
    }

    static func open(_ url: URL, _ model: ObjectModel) throws -> ObjectStore {
        try ObjectStore(store: try SQLiteStore(at: url, readOnly: false), model: model)
    }

    /// Every object's relationships, a line each.
    static func links(_ store: ObjectStore) throws -> [String] {
        var lines: [String] = []
        for entity in ["Author", "Book", "Tag"] {
            for object in try store.objects(of: entity).all() {
                for (name, value) in object.relationships.sorted(by: { $0.key < $1.key }) {
                    switch value {
                    case .toOne(let target): lines.append("\(object.id) \(name) \(target.map(\.description) ?? "nil")")
                    case .toMany(let targets): lines.append("\(object.id) \(name) \(targets)")
                    }
                }
            }
        }
        return lines
    }
}
