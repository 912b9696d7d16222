import Foundation
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// The bits of an update's mask of changed properties (`ACHANGE.ZCOLUMNS`): Core Data's six
/// groups in order, each property's bits, bit `i` at `0x80 >> (i & 7)` of byte `i >> 3`.
@Suite("History update masks")
struct HistoryColumnMaskTests {
    /// Item's attributes in file order title, count, alpha; a to-one whose inverse is ordered
    /// (an order column), a to-one to an entity with a sub-entity (an entity column), a to-many
    /// with a to-one inverse, one without an inverse, and a many-to-many. Book inherits all of
    /// it and adds two attributes and a to-one.
    static let model = """
        <entity name="Item">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="count" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
            <attribute name="alpha" optional="YES" attributeType="Date"/>
            <attribute name="scratch" optional="YES" transient="YES" attributeType="String"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
            <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="items" inverseEntity="Shelf"/>
            <relationship name="notes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Note" inverseName="item" inverseEntity="Note"/>
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person"/>
            <relationship name="links" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag"/>
        </entity>
        <entity name="Book" parentEntity="Item">
            <attribute name="isbn" optional="YES" attributeType="String"/>
            <attribute name="author" optional="YES" attributeType="String"/>
            <relationship name="publisher" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Tag"/>
        </entity>
        <entity name="Shelf">
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="shelf" inverseEntity="Item"/>
        </entity>
        <entity name="Note">
            <attribute name="text" optional="YES" attributeType="String"/>
            <relationship name="item" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item" inverseName="notes" inverseEntity="Item"/>
        </entity>
        <entity name="Tag">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
        </entity>
        <entity name="Person">
            <attribute name="name" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Employee" parentEntity="Person">
            <attribute name="salary" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
        </entity>
        """

    func layout() throws -> StoreLayout {
        try StoreLayout(model: XcodeModelReader().read(Data(ModelXML.document(Self.model).utf8), file: "contents"))
    }

    func describe(_ mask: HistoryColumnMask) -> [String] {
        mask.columns.map { "\($0.group) \($0.property)" }
    }

    @Test("the groups in Core Data's order; a sub-entity's own columns after its parent's, each by name")
    func order() throws {
        let layout = try layout()
        let item = try #require(layout.historyColumnMask(of: "Item"))
        #expect(
            describe(item) == [
                "foreignKey owner", "foreignKey shelf", "entityKey owner", "orderKey shelf",
                "attribute alpha", "attribute count", "attribute title",
                "toMany links", "toMany notes", "manyToMany tags",
            ])
        let book = try #require(layout.historyColumnMask(of: "Book"))
        #expect(
            describe(book) == [
                "foreignKey owner", "foreignKey shelf", "foreignKey publisher", "entityKey owner", "orderKey shelf",
                "attribute alpha", "attribute count", "attribute title", "attribute author", "attribute isbn",
                "toMany links", "toMany notes", "manyToMany tags",
            ])
        #expect(book.byteCount == 2)
        #expect(try #require(layout.historyColumnMask(of: "Shelf")).columns.map(\.property) == ["label", "items"])
        #expect(layout.historyColumnMask(of: "Nothing") == nil)
    }

    @Test("bit i is 0x80 >> (i & 7) of byte i >> 3; a to-one sets each of its bits")
    func encode() throws {
        let book = try #require(try layout().historyColumnMask(of: "Book"))
        // shelf: its key (bit 1) and its order column (bit 4).
        #expect(book.mask(for: ["shelf"]) == Data([0x48, 0x00]))
        // owner: its key (bit 0) and its entity column (bit 3).
        #expect(book.mask(for: ["owner"]) == Data([0x90, 0x00]))
        // isbn is bit 9, tags bit 12.
        #expect(book.mask(for: ["isbn", "tags"]) == Data([0x00, 0x48]))
        #expect(book.mask(for: ["no such property"]) == Data([0x00, 0x00]))
        #expect(book.mask(for: []).count == 2)
    }

    @Test("decoding names each property once, by name; a short mask names none; extra bytes are not read")
    func decode() throws {
        let book = try #require(try layout().historyColumnMask(of: "Book"))
        let all = [
            "alpha", "author", "count", "isbn", "links", "notes", "owner", "publisher", "shelf", "tags", "title",
        ]
        #expect(book.properties == all)
        #expect(book.properties(in: book.mask(for: all)) == all)
        #expect(book.properties(in: Data([0xFF, 0xF8])) == all)
        #expect(book.properties(in: Data([0x48, 0x08])) == ["shelf", "tags"])
        // Only owner's entity column: still owner.
        #expect(book.properties(in: Data([0x10, 0x00])) == ["owner"])
        #expect(book.properties(in: Data([0x00, 0x40, 0xFF])) == ["isbn"])
        #expect(book.properties(in: Data([0xFF])) == nil)
        #expect(book.properties(in: Data()) == nil)
    }

    @Test("a composite attribute stands for its leaves' columns, in its place by name, each leaf by its path")
    func composite() throws {
        let model = try InferenceCase.model(InferenceCases.travellers(travellerExtra: [InferenceCases.age]), name: "T")
        let traveller = try #require(try StoreLayout(model: model).historyColumnMask(of: "Traveller"))
        #expect(
            describe(traveller) == [
                "attribute age", "attribute home.street", "attribute home.city", "attribute home.geo.latitude",
                "attribute home.geo.longitude", "attribute name", "attribute work.street", "attribute work.city",
                "attribute work.geo.latitude", "attribute work.geo.longitude", "toMany trips",
            ])
        // home.city is bit 2; work.city bit 7: another leaf of the same name.
        #expect(traveller.mask(for: ["home.city"]) == Data([0x20, 0x00]))
        #expect(traveller.properties(in: Data([0x21, 0x00])) == ["home.city", "work.city"])
    }
}
