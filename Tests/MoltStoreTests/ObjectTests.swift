import Foundation
import MoltCore
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

@Suite("Reading and writing objects")
struct ObjectTests {
    let folder = TemporaryDirectory()

    func blogStore() throws -> ObjectStore {
        try TestStores.create(try TestStores.blogModel(), in: folder)
    }

    @Test("every attribute type is written and read back as a typed value")
    func attributeTypes() throws {
        let store = try blogStore()
        let uuid = UUID()
        let born = Date(timeIntervalSinceReferenceDate: -1234.5)
        let values: [String: AttributeValue] = [
            "title": .string("Ünïcode ✓ \u{0}nul"), "views": .integer(Int64.max), "likes": .integer(Int64(Int32.min)),
            "priority": .integer(-7), "score": .double(-0.125), "price": .decimal(Decimal(string: "1234.5678")!),
            "isDraft": .bool(false), "publishedAt": .date(born), "metadata": .data(Data([0, 1, 2, 255])),
            "duration": .double(.infinity), "stream": .uri("https://example.com/a?b=c#d"),
        ]
        let id = try store.write { try $0.insert("Video", attributes: values) }
        let author = try store.write {
            try $0.insert(
                "Author", attributes: ["name": .string("A"), "identifier": .uuid(uuid), "avatar": .data(Data())])
        }
        let read = try #require(try store.object(id))
        #expect(read.attributes == values)
        #expect(read.version == 1)
        let authorRead = try #require(try store.object(author))
        #expect(authorRead.attributes["identifier"] == .uuid(uuid))
        #expect(authorRead.attributes["avatar"] == .data(Data()), "an empty blob is not NULL")
        #expect(authorRead.attributes["rating"] == .double(0), "the model's default applies")
        let raw = try store.store.connection.rows("SELECT ZPUBLISHEDAT, typeof(ZIDENTIFIER) FROM ZPOST, ZAUTHOR")
        #expect(raw.first?[0] == .real(-1234.5), "dates are stored as seconds since 2001")
        #expect(raw.first?[1] == .text("blob"), "UUIDs are stored as 16-byte blobs")
    }

    @Test("updating sets values, clears them with nil, and increments Z_OPT")
    func update() throws {
        let store = try blogStore()
        let id = try store.write { try $0.insert("Tag", attributes: ["name": .string("old")]) }
        try store.write { try $0.update(id, attributes: ["name": .string("new")]) }
        try store.write { try $0.update(id, attributes: ["name": nil]) }
        let read = try #require(try store.object(id))
        #expect(read.attributes["name"] == nil)
        #expect(read.version == 3)
    }

    @Test("primary keys come from Z_PRIMARYKEY, are shared by a hierarchy, and Z_MAX follows them")
    func primaryKeys() throws {
        let store = try blogStore()
        let ids = try store.write { writer in
            [
                try writer.insert("Article", attributes: ["title": .string("a")]),
                try writer.insert("Video", attributes: ["title": .string("v")]),
                try writer.insert("Article", attributes: ["title": .string("b")], primaryKey: 10),
                try writer.insert("Video", attributes: ["title": .string("w")]),
                try writer.insert("Tag", attributes: ["name": .string("t")]),
            ]
        }
        #expect(ids.map(\.description) == ["Article/1", "Video/2", "Article/10", "Video/11", "Tag/1"])
        let maxima = try store.store.connection.rows("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        #expect(
            maxima.map { $0[1] } == [.integer(0), .integer(0), .integer(11), .integer(0), .integer(0), .integer(1)])
        let taken = #expect(throws: MoltError.self) {
            try store.write { try $0.insert("Video", attributes: ["title": .string("x")], primaryKey: 10) }
        }
        #expect(taken?.message.contains("already used") == true)
        #expect(try store.count(of: "Post") == 4)
        #expect(try store.count(of: "Post", includingSubentities: false) == 0)
    }

    @Test("a to-one and its to-many inverse are one link, seen from both sides")
    func oneToMany() throws {
        let store = try blogStore()
        let (ann, bob, post) = try store.write { w in
            (
                try w.insert("Author", attributes: ["name": .string("Ann"), "identifier": .uuid(UUID())]),
                try w.insert("Author", attributes: ["name": .string("Bob"), "identifier": .uuid(UUID())]),
                try w.insert("Article", attributes: ["title": .string("P")])
            )
        }
        try store.write { try $0.setToOne(post, "author", to: ann) }
        #expect(try store.object(ann)?.relationships["posts"] == .toMany([post]))
        try store.write { try $0.setToMany(bob, "posts", to: [post]) }
        #expect(try store.object(ann)?.relationships["posts"] == .toMany([]))
        #expect(try store.object(post)?.relationships["author"] == .toOne(bob))
        try store.write { try $0.setToOne(post, "author", to: nil) }
        #expect(try store.object(bob)?.relationships["posts"] == .toMany([]))
    }

    @Test("an ordered to-many keeps its order; new links from the to-one side go last")
    func orderedOneToMany() throws {
        let store = try blogStore()
        let (post, c1, c2, c3) = try store.write { w in
            (
                try w.insert("Article", attributes: ["title": .string("P")]),
                try w.insert("Comment", attributes: ["text": .string("1"), "createdAt": .date(Date())]),
                try w.insert("Comment", attributes: ["text": .string("2"), "createdAt": .date(Date())]),
                try w.insert("Comment", attributes: ["text": .string("3"), "createdAt": .date(Date())])
            )
        }
        try store.write { try $0.setToMany(post, "comments", to: [c3, c1]) }
        #expect(try store.object(post)?.relationships["comments"] == .toMany([c3, c1]))
        try store.write { try $0.setToOne(c2, "post", to: post) }
        #expect(try store.object(post)?.relationships["comments"] == .toMany([c3, c1, c2]))
        try store.write { try $0.setToMany(post, "comments", to: [c2, c3]) }
        #expect(try store.object(post)?.relationships["comments"] == .toMany([c2, c3]))
        #expect(try store.object(c1)?.relationships["post"] == .toOne(nil))
        #expect(try store.object(c2)?.relationships["post"] == .toOne(post), "the to-one records the sub-entity")
    }

    @Test("many-to-many links are shared by both sides; an ordered side keeps its order")
    func manyToMany() throws {
        let store = try blogStore()
        let (a, v, swift, db) = try store.write { w in
            (
                try w.insert("Article", attributes: ["title": .string("A")]),
                try w.insert("Video", attributes: ["title": .string("V")]),
                try w.insert("Tag", attributes: ["name": .string("swift")]),
                try w.insert("Tag", attributes: ["name": .string("db")])
            )
        }
        try store.write { w in
            try w.setToMany(a, "tags", to: [swift, db])
            try w.setToMany(v, "tags", to: [swift])
        }
        #expect(try store.object(swift)?.relationships["posts"] == .toMany([a, v]))
        try store.write { try $0.setToMany(swift, "posts", to: [v, a]) }
        #expect(try store.object(swift)?.relationships["posts"] == .toMany([v, a]))
        #expect(try store.object(a)?.relationships["tags"] == .toMany([db, swift].sorted()))
        try store.write { try $0.setToMany(a, "tags", to: [db]) }
        #expect(try store.object(swift)?.relationships["posts"] == .toMany([v]))
    }

    @Test("a relationship that is its own inverse is symmetric")
    func selfInverse() throws {
        let folder = TemporaryDirectory()
        let model = try TestStores.model(
            """
            <entity name="Person"><attribute name="name" attributeType="String"/>
            <relationship name="friends" optional="YES" toMany="YES" destinationEntity="Person" inverseName="friends" inverseEntity="Person"/>
            <relationship name="spouse" optional="YES" maxCount="1" destinationEntity="Person" inverseName="spouse" inverseEntity="Person"/></entity>
            """)
        let store = try TestStores.create(model, in: folder)
        let (a, b, c) = try store.write { w in
            (
                try w.insert("Person", attributes: ["name": .string("a")]),
                try w.insert("Person", attributes: ["name": .string("b")]),
                try w.insert("Person", attributes: ["name": .string("c")])
            )
        }
        try store.write { try $0.setToMany(a, "friends", to: [b, c]) }
        #expect(try store.object(b)?.relationships["friends"] == .toMany([a]))
        try store.write { try $0.setToMany(a, "friends", to: [c]) }
        #expect(try store.object(b)?.relationships["friends"] == .toMany([]))
        try store.write { try $0.setToOne(a, "spouse", to: b) }
        #expect(try store.object(b)?.relationships["spouse"] == .toOne(a))
        try store.write { try $0.setToOne(c, "spouse", to: b) }
        #expect(
            try store.object(a)?.relationships["spouse"] == .toOne(nil),
            "a one-to-one moves; the old partner is left alone")
        #expect(try store.object(b)?.relationships["spouse"] == .toOne(c))
    }

    @Test(
        "bad writes are refused with the entity and property named",
        arguments: [
            "abstract", "unknown attribute", "wrong type", "out of range", "NaN", "wrong target", "missing object",
            "to-many as to-one", "duplicate target",
        ])
    func refusedWrites(kind: String) throws {
        let store = try blogStore()
        let tag = try store.write { try $0.insert("Tag", attributes: ["name": .string("t")]) }
        let error = #expect(throws: MoltError.self) {
            try store.write { w in
                switch kind {
                case "abstract": try w.insert("Post")
                case "unknown attribute": try w.insert("Tag", attributes: ["colour": .string("red")])
                case "wrong type": try w.insert("Tag", attributes: ["name": .integer(3)])
                case "out of range": try w.insert("Article", attributes: ["priority": .integer(70_000)])
                case "NaN": try w.insert("Article", attributes: ["score": .double(.nan)])
                case "wrong target":
                    let c = try w.insert("Comment", attributes: ["text": .string("c"), "createdAt": .date(Date())])
                    try w.setToOne(c, "post", to: tag)
                case "missing object": try w.setToMany(ObjectID(entity: "Tag", primaryKey: 99), "posts", to: [])
                case "to-many as to-one": try w.setToOne(tag, "posts", to: nil)
                default:
                    let a = try w.insert("Article", attributes: ["title": .string("a")])
                    try w.setToMany(tag, "posts", to: [a, a])
                }
            }
        }
        #expect(error?.entity != nil, "\(String(describing: error))")
        #expect(try store.count(of: "Tag") == 1, "a failed write changes nothing")
    }

    @Test("a cursor reads every object once, in key order, whatever the batch size")
    func batches() throws {
        let store = try blogStore()
        try store.write { w in
            for index in 0..<25 {
                try w.insert(index % 2 == 0 ? "Article" : "Video", attributes: ["title": .string("\(index)")])
            }
        }
        for batchSize in [1, 7, 25, 100] {
            let cursor = try store.objects(of: "Post", batchSize: batchSize)
            var keys: [Int64] = []
            while let batch = try cursor.nextBatch() {
                #expect(batch.count <= batchSize)
                keys += batch.map(\.id.primaryKey)
            }
            #expect(keys == Array(1...25))
        }
        #expect(try store.objects(of: "Video").all().map(\.id.primaryKey) == Array(stride(from: 2, through: 24, by: 2)))
    }

    /// Runs in a child process of its own (an exit test), so that what other tests allocate
    /// in parallel cannot blur the measurement.
    @Test("memory stays flat while reading 200,000 objects in batches", .enabled(if: HeapUsage.bytesInUse() > 0))
    func boundedMemory() async {
        await #expect(processExitsWith: .success) {
            let folder = TemporaryDirectory()
            let store = try TestStores.create(try TestStores.blogModel(), in: folder)
            try store.write { w in
                for index in 0..<200_000 {
                    try w.insert(
                        "Comment",
                        attributes: [
                            "text": .string("comment number \(index) with some text"), "createdAt": .date(Date()),
                        ])
                }
            }
            let cursor = try store.objects(of: "Comment", batchSize: 1000)
            var read = 0
            var early = 0
            var peak = 0
            while let batch = try cursor.nextBatch() {
                read += batch.count
                let inUse = HeapUsage.bytesInUse()
                if read == 20_000 { early = inUse }
                if read > 20_000 { peak = max(peak, inUse) }
            }
            // Reading 180,000 more objects after the first 20,000 may not grow resident memory
            // by more than a few batches' worth (a batch of 1,000 is well under 1 MB); keeping
            // every object would take over 50 MB.
            let growth = peak - early
            if read != 200_000 || growth >= 16 * 1024 * 1024 {
                FileHandle.standardError.write(
                    Data("read \(read) objects; resident memory grew by \(growth) bytes\n".utf8))
                exit(1)
            }
        }
    }
}

/// The process's resident memory, from /proc/self/statm (Linux); 0 elsewhere.
enum HeapUsage {
    static func bytesInUse() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * 4096
    }
}
