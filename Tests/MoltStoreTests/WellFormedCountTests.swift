import Foundation
import MoltSQLite
import MoltTestSupport
import Testing

@testable import MoltStore

/// Counting objects in a store Molt wrote itself (`rowsAreWellFormed`): a table that holds no
/// entity but those counted is counted whole, a table shared with other entities by entity
/// number; any other store is always counted by entity number.
@Suite("Counting the objects of a store Molt wrote")
struct WellFormedCountTests {
    static func store(in folder: TemporaryDirectory) throws -> ObjectStore {
        let model = try TestStores.model(
            """
            <entity name="Item" isAbstract="YES"><attribute name="title" attributeType="String"/></entity>
            <entity name="Book" parentEntity="Item"/>
            <entity name="Film" parentEntity="Item"/>
            <entity name="Note"><attribute name="text" attributeType="String"/></entity>
            """)
        return try TestStores.create(model, in: folder) { writer in
            for index in 0..<3 { _ = try writer.insert("Book", attributes: ["title": .string("b\(index)")]) }
            for index in 0..<2 { _ = try writer.insert("Film", attributes: ["title": .string("f\(index)")]) }
            for index in 0..<4 { _ = try writer.insert("Note", attributes: ["text": .string("n\(index)")]) }
        }
    }

    @Test("each entity's count is the same counted whole or by entity number")
    func sameCounts() throws {
        let folder = TemporaryDirectory("molt-count")
        let store = try Self.store(in: folder)
        for (entity, subentities, expected) in [
            ("Book", false, 3), ("Film", false, 2), ("Item", true, 5), ("Item", false, 0), ("Note", false, 4),
        ] {
            #expect(try store.count(of: entity, includingSubentities: subentities) == expected, "\(entity)")
            #expect(
                try store.count(of: entity, includingSubentities: subentities, rowsAreWellFormed: true) == expected,
                "\(entity), counted as a store Molt wrote")
        }
        let layout = store.layout
        let item = try layout.requireEntity("Item")
        #expect(layout.holdsOnly(item.kindNumbers, in: item.table))
        #expect(!layout.holdsOnly([try layout.requireEntity("Book").number], in: item.table))
        #expect(layout.holdsOnly([try layout.requireEntity("Note").number], in: "ZNOTE"))
    }

    @Test("a row of a foreign entity number is left out, unless the store is said to be Molt's own")
    func foreignRow() throws {
        let folder = TemporaryDirectory("molt-count")
        let store = try Self.store(in: folder)
        try store.store.connection.execute(
            "INSERT INTO ZNOTE (Z_PK, Z_ENT, Z_OPT, ZTEXT) VALUES (100, 99, 1, 'stray')")
        #expect(try store.count(of: "Note", includingSubentities: false) == 4)
        // Whole tables are counted only under the promise that no such row exists.
        #expect(try store.count(of: "Note", includingSubentities: false, rowsAreWellFormed: true) == 5)
        // A table shared by several entities is always counted by entity number.
        try store.store.connection.execute(
            "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT) VALUES (100, 99, 1)")
        #expect(try store.count(of: "Book", includingSubentities: false, rowsAreWellFormed: true) == 3)
    }
}
