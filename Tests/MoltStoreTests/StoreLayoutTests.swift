import Foundation
import MoltCore
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

@Suite(
    "Core Data's SQLite layout on Apple's store",
    .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
struct RealStoreLayoutTests {
    @Test(
        "a store created from TestModel.xcdatamodel has exactly TestModel.sqlite's tables, columns, types and indexes")
    func schemaMatchesAppleStore() throws {
        let folder = TemporaryDirectory()
        let apple = try folder.copy(Fixtures.real("coredatastack/TestModel.sqlite"))
        let model = try ModelLoader().load(at: Fixtures.real("coredatastack/Sample.xcdatamodeld/TestModel.xcdatamodel"))
        let ours = try TestStores.create(model, in: folder, name: "ours.sqlite")
        let expected = try SchemaSnapshot(path: apple.path)
        let actual = try SchemaSnapshot(path: ours.store.url.path)
        #expect(actual == expected, "ours:\n\(actual)\n\nApple's:\n\(expected)")
        #expect(expected.tables.count == 6)  // checks the comparison saw something
    }

    @Test("Apple's store opens, its stored hashes equal TestModel's, and TestModel 2 differs as it should")
    func appleStoreMetadata() throws {
        let folder = TemporaryDirectory()
        let apple = try folder.copy(Fixtures.real("coredatastack/TestModel.sqlite"))
        let store = try SQLiteStore(at: apple)
        let bundle = try ModelBundle(url: Fixtures.real("coredatastack/Sample.xcdatamodeld"))
        #expect(store.metadata.entityVersionHashes == (try bundle.model(named: "TestModel").entityVersionHashes()))
        #expect(store.metadata.storeUUID == "E7350B5D-5058-46F7-90B9-DCA517BBAF92")
        #expect(store.metadata.frameworkVersion == 637 && store.metadata.versionIdentifiers == [""])
        #expect(try store.hasModelCache())
        #expect(
            try store.compatibility(with: bundle.model(named: "TestModel 2"))
                == .incompatible(differing: ["Book"], missingFromStore: ["Publisher"], onlyInStore: []))
        #expect(try store.matchingModel(from: .bundle(bundle)).name == "TestModel")
        // Writing the metadata back through Molt's property-list writer keeps every value.
        let reread = try StoreMetadata(
            propertyList: try BinaryPropertyListReader().read(
                BinaryPropertyListWriter().write(store.metadata.propertyList)),
            storeUUID: store.metadata.storeUUID)
        #expect(reread == store.metadata)
        let empty = try ObjectStore(store: store, model: bundle.model(named: "TestModel"))
        #expect(try empty.count(of: "Author") == 0)
    }

    @Test("Z_PRIMARYKEY and the file settings match Apple's store")
    func bookkeepingMatchesAppleStore() throws {
        let folder = TemporaryDirectory()
        let apple = try folder.copy(Fixtures.real("coredatastack/TestModel.sqlite"))
        let model = try ModelLoader().load(at: Fixtures.real("coredatastack/Sample.xcdatamodeld/TestModel.xcdatamodel"))
        let ours = try TestStores.create(model, in: folder, name: "ours.sqlite")
        let query = "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT"
        let appleDB = try SQLiteConnection(path: apple.path, mode: .readOnly)
        #expect(try ours.store.connection.rows(query) == appleDB.rows(query))
        for pragma in ["page_size", "auto_vacuum", "journal_mode"] {
            #expect(
                try ours.store.connection.scalar("PRAGMA \(pragma)") == appleDB.scalar("PRAGMA \(pragma)"), "\(pragma)")
        }
    }
}

@Suite("Core Data's SQLite layout")
struct StoreLayoutTests {
    @Test("entities are numbered by name with sub-entities right after their parent")
    func numbering() throws {
        let layout = try StoreLayout(model: try TestStores.blogModel())
        #expect(layout.entities.map(\.name) == ["Author", "Comment", "Post", "Article", "Video", "Tag"])
        #expect(layout.entities.map(\.number) == [1, 2, 3, 4, 5, 6])
        #expect(layout.entity(named: "Article")?.superNumber == 3)
        #expect(layout.entity(named: "Post")?.kindNumbers == [3, 4, 5])
        #expect(layout.entity(named: "Video")?.table == "ZPOST")
    }

    @Test("one table per hierarchy root, columns grouped by type and ordered by name")
    func tables() throws {
        let layout = try StoreLayout(model: try TestStores.blogModel())
        #expect(layout.tables.map(\.name) == ["ZAUTHOR", "ZCOMMENT", "ZPOST", "ZTAG"])
        let post = layout.tables.first { $0.name == "ZPOST" }!
        #expect(
            post.columns.map(\.name) == [
                "Z_PK", "Z_ENT", "Z_OPT", "ZISDRAFT", "ZLIKES", "ZPRIORITY", "ZVIEWS", "ZAUTHOR", "ZDURATION", "ZPRICE",
                "ZPUBLISHEDAT", "ZSCORE", "ZBODY", "ZSTREAM", "ZSUMMARY", "ZTITLE", "ZMETADATA",
            ])
        #expect(post.columns.first { $0.name == "ZPRICE" }?.type == "DECIMAL")
        let author = layout.tables.first { $0.name == "ZAUTHOR" }!
        #expect(author.columns.first { $0.name == "ZIDENTIFIER" }?.type == "BLOB")
        #expect(author.columns.first { $0.name == "ZHOMEPAGE" }?.type == "VARCHAR")
        #expect(!author.columns.contains { $0.name == "ZDISPLAYNAME" }, "transient attributes have no column")
    }

    @Test("a to-one to an entity with sub-entities records the entity; an ordered inverse adds an order column")
    func toOneColumns() throws {
        let layout = try StoreLayout(model: try TestStores.blogModel())
        let comment = try #require(layout.entity(named: "Comment")?.relationship(named: "post"))
        #expect(comment.storage == .foreignKey(column: "ZPOST", entityColumn: "Z3_POST", orderColumn: "Z_FOK_POST"))
        let comments = try #require(layout.entity(named: "Article")?.relationship(named: "comments"))
        #expect(
            comments.storage == .inverseForeignKey(column: "ZPOST", entityColumn: "Z3_POST", orderColumn: "Z_FOK_POST"))
        let table = layout.tables.first { $0.name == "ZCOMMENT" }!
        #expect(table.indexes.map(\.name) == ["ZCOMMENT_ZPOST_INDEX"])
    }

    @Test("many-to-many join tables are named by the relationship that sorts last, columns by the inverse")
    func joinTables() throws {
        let layout = try StoreLayout(model: try TestStores.blogModel())
        let names = layout.joinTables.map { "\($0.name)(\($0.firstColumn), \($0.secondColumn))" }
        #expect(names == ["Z_1FOLLOWING(Z_1FOLLOWERS, Z_1FOLLOWING)", "Z_3TAGS(Z_3POSTS, Z_6TAGS)"])
        let tags = layout.joinTables[1]
        #expect(tags.orderColumns == ["Z_FOK_3POSTS"])
        #expect(tags.index.name == "Z_3TAGS_Z_6TAGS_INDEX" && tags.index.columns == ["Z_6TAGS", "Z_3POSTS"])
        let tagPosts = try #require(layout.entity(named: "Tag")?.relationship(named: "posts"))
        #expect(
            tagPosts.storage
                == .joinTable(
                    table: "Z_3TAGS", ownColumn: "Z_6TAGS", otherColumn: "Z_3POSTS", orderColumn: "Z_FOK_3POSTS",
                    inverseOrderColumn: nil, mirrored: false))
    }

    @Test("sibling sub-entities with a property of the same name get numbered columns")
    func siblingClash() throws {
        let model = try TestStores.model(
            """
            <entity name="Item" isAbstract="YES"/>
            <entity name="Book" parentEntity="Item"><attribute name="title" attributeType="String"/></entity>
            <entity name="Film" parentEntity="Item"><attribute name="title" attributeType="String"/></entity>
            <entity name="Game" parentEntity="Item"><attribute name="title" attributeType="Integer 32"/></entity>
            """)
        let layout = try StoreLayout(model: model)
        #expect(layout.entity(named: "Book")?.attribute(named: "title")?.column == "ZTITLE")
        #expect(layout.entity(named: "Film")?.attribute(named: "title")?.column == "ZTITLE1")
        #expect(layout.entity(named: "Game")?.attribute(named: "title")?.column == "ZTITLE2")
        #expect(layout.tables[0].columns.map(\.name) == ["Z_PK", "Z_ENT", "Z_OPT", "ZTITLE2", "ZTITLE", "ZTITLE1"])
    }

    @Test("a relationship that is its own inverse, and one without an inverse, get join tables")
    func selfAndNoInverse() throws {
        let model = try TestStores.model(
            """
            <entity name="Person">
                <relationship name="friends" optional="YES" toMany="YES" destinationEntity="Person" inverseName="friends" inverseEntity="Person"/>
                <relationship name="likes" optional="YES" toMany="YES" destinationEntity="Thing"/>
            </entity>
            <entity name="Thing"><attribute name="name" attributeType="String"/></entity>
            """)
        let layout = try StoreLayout(model: model)
        let names = layout.joinTables.map { "\($0.name)(\($0.firstColumn), \($0.secondColumn))" }
        #expect(names == ["Z_1FRIENDS(Z_1FRIENDS, Z_1FRIENDS1)", "Z_1LIKES(Z_1LIKES, Z_2LIKES)"])
        guard
            case .joinTable(_, _, _, _, _, let mirrored)? = layout.entity(named: "Person")?.relationship(
                named: "friends")?.storage
        else {
            Issue.record("friends should be stored in a join table")
            return
        }
        #expect(mirrored)
    }

    @Test("names that clash with Core Data's own columns or differ only in case are kept apart")
    func clashes() throws {
        let model = try TestStores.model(
            """
            <entity name="Item"><attribute name="_pk" attributeType="String"/><attribute name="name" attributeType="String"/><attribute name="Name" attributeType="String"/></entity>
            <entity name="ITEM"><attribute name="x" attributeType="String"/></entity>
            """)
        let layout = try StoreLayout(model: model)
        #expect(layout.tables.map(\.name) == ["ZITEM", "ZITEM1"])
        #expect(layout.entity(named: "ITEM")?.table == "ZITEM")
        let columns = layout.entity(named: "Item")!.attributes.map(\.column)
        #expect(Set(columns).count == 3 && !columns.contains("Z_PK"))
    }

    @Test("a model that fails its check cannot be laid out")
    func invalidModel() {
        #expect(throws: MoltError.self) {
            try StoreLayout(model: try TestStores.model("<entity name=\"A\" parentEntity=\"Ghost\"/>"))
        }
    }
}
