import Foundation
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// `ObjectStore.historyChanges()`: each `ACHANGE` row decoded with the store's model.
@Suite("Persistent history decoded")
struct HistoryChangeTests {
    let folder = TemporaryDirectory("molt-history-changes")

    static let model = """
        <entity name="Item">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="price" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
        </entity>
        """

    func store() throws -> ObjectStore {
        let model = try XcodeModelReader().read(Data(ModelXML.document(Self.model).utf8), file: "contents")
        return try ObjectStore.create(at: folder.path("history.sqlite"), model: model)
    }

    @Test("a store without an ACHANGE table has no history (nil), one with an empty table has none (empty)")
    func none() throws {
        let store = try store()
        defer { store.store.connection.close() }
        #expect(try store.historyChanges() == nil)
        try store.store.connection.execute(
            "CREATE TABLE ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB)"
        )
        #expect(try store.historyChanges() == [])
    }

    @Test("kinds, objects, an update's properties; a short or missing mask, an unknown entity number")
    func decoded() throws {
        let store = try store()
        defer { store.store.connection.close() }
        try store.store.connection.execute(
            """
            CREATE TABLE ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB);
            INSERT INTO ACHANGE VALUES (1, 16001, 1, 0, 1, 5, 10, NULL);
            INSERT INTO ACHANGE VALUES (2, 16001, 1, 1, 1, 5, 11, x'40');
            INSERT INTO ACHANGE VALUES (3, 16001, 1, 1, 1, 5, 12, x'');
            INSERT INTO ACHANGE VALUES (4, 16001, 1, 1, 1, 5, 12, NULL);
            INSERT INTO ACHANGE VALUES (5, 16001, 1, 2, 9, 7, 13, NULL);
            INSERT INTO ACHANGE VALUES (6, 16001, 1, 4, 1, 5, 13, NULL);
            """)
        let changes = try #require(try store.historyChanges())
        #expect(
            changes.map(\.description) == [
                "change 1  transaction 10  insert  Item/5",
                "change 2  transaction 11  update  Item/5  price",
                "change 3  transaction 12  update  Item/5  (mask does not fit the entity)",
                "change 4  transaction 12  update  Item/5  (mask does not fit the entity)",
                "change 5  transaction 13  delete  #9/7",
                "change 6  transaction 13  type 4  Item/5",
            ])
        #expect(changes[1].properties == ["price"] && changes[1].isMaskReadable)
        #expect(changes[2].properties.isEmpty && !changes[2].isMaskReadable)
        #expect(changes[4].object == ObjectID(entity: "#9", primaryKey: 7))
    }
}
