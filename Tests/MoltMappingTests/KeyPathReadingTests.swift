import Foundation
import MoltCore
import MoltMapping
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// A key path that walks a relationship reads what it reads: the targets' attributes, and
/// their to-many relationships only when the path goes on through them. A tag shared by every
/// post is read for its name, never with all of its posts (which made a walk over a store
/// with shared tags cost the square of the store).
@Suite("Key paths read only what they read")
struct KeyPathReadingTests {
    static let entities = """
        <entity name="Post" representedClassName="Post" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="tags" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="posts" inverseEntity="Tag"/>
            <relationship name="pinnedBy" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Tag" inverseName="pinned" inverseEntity="Tag"/>
        </entity>
        <entity name="Tag" representedClassName="Tag" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="posts" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Post" inverseName="tags" inverseEntity="Post"/>
            <relationship name="pinned" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Post" inverseName="pinnedBy" inverseEntity="Post"/>
        </entity>
        """

    /// 300 posts, each tagged "swift" then "db" (in that order), the first 100 pinned by "db".
    static func makeStore(in folder: TemporaryDirectory) throws -> (url: URL, model: ObjectModel) {
        let model = try InferenceCase.model(entities, name: "Posts")
        let url = folder.path("posts.sqlite")
        _ = try ObjectStore.create(at: url, model: model) { writer in
            let swift = try writer.insert("Tag", attributes: ["name": .string("swift")])
            let db = try writer.insert("Tag", attributes: ["name": .string("db")])
            for index in 0..<300 {
                let post = try writer.insert("Post", attributes: ["title": .string("Post \(index)")])
                try writer.setToMany(post, "tags", to: [swift, db])
                if index < 100 { try writer.setToOne(post, "pinnedBy", to: db) }
            }
        }
        return (url, model)
    }

    /// What a statement reading one of Tag's to-many relationships would contain.
    static func tagToManyMarkers(_ store: ObjectStore) throws -> [String] {
        let tag = try store.layout.requireEntity("Tag")
        return try ["posts", "pinned"].map { name in
            switch tag.relationship(named: name)?.storage {
            case .joinTable(_, let own, _, _, _, _)?: return "j.\"\(own)\" BETWEEN"
            case .inverseForeignKey(let column, _, _)?: return "WHERE \"\(column)\" BETWEEN"
            default: throw MoltError(.migration, "unexpected storage of Tag.\(name)")
            }
        }
    }

    @Test("walking each post's tags for their names never reads the tags' posts")
    func sharedTargetsAreReadForWhatIsAsked() throws {
        let folder = TemporaryDirectory()
        let (url, model) = try Self.makeStore(in: folder)
        let store = try ObjectStore.open(at: url, models: .model(model))
        let markers = try Self.tagToManyMarkers(store)
        let traced = Collected()
        store.store.connection.trace { traced.append($0) }

        let names = try ExpressionCompiler.compile("$source.tags.name")
        let resolver = StoreObjectResolver(source: store)
        resolver.capacity = 8  // evicted often: every tag is read again and again
        let context = EvaluationContext(variables: EvaluationContext.variables(userInfo: [:]), resolver: resolver)
        let cursor = try store.objects(of: "Post")
        var posts = 0
        while let batch = try cursor.nextBatch() {
            for post in batch {
                resolver.remember(post)
                context.variables["source"] = .object(ObjectReference(.source, post.id))
                #expect(try names.evaluate(context) == .collection([.string("swift"), .string("db")]))
                posts += 1
            }
        }
        store.store.connection.trace(nil)
        #expect(posts == 300)
        let readsOfTagLinks = traced.items.filter { statement in markers.contains { statement.contains($0) } }.count
        #expect(readsOfTagLinks == 0, "Tag's to-many relationships were read")
        // Each tag read costs one row, whatever the number of posts sharing it.
        #expect(traced.items.count < 2 * 300 + 50)
    }

    @Test("a to-many reached through a key path is read when the path goes on, in its order")
    func toManyOfAReachedObjectIsReadOnDemand() throws {
        let folder = TemporaryDirectory()
        let (url, model) = try Self.makeStore(in: folder)
        let store = try ObjectStore.open(at: url, models: .model(model))
        let resolver = StoreObjectResolver(source: store)
        let context = EvaluationContext(variables: EvaluationContext.variables(userInfo: [:]), resolver: resolver)
        let first = try #require(try store.objects(of: "Post").nextBatch()?.first)
        context.variables["source"] = .object(ObjectReference(.source, first.id))

        // Through the tags (read without their links) to their posts (a path through two
        // to-manys gives every object reached, as Molt's key paths do), then through a to-one.
        let counts = try ExpressionCompiler.compile("$source.tags.posts.@count").evaluate(context)
        #expect(counts == .integer(600))
        let pinned = try ExpressionCompiler.compile("$source.pinnedBy.pinned.@count").evaluate(context)
        #expect(pinned == .integer(100))
        // An ordered to-many of an object reached by a path keeps its order.
        let orderOfLast = try ExpressionCompiler.compile("$source.pinnedBy.pinned.tags.name").evaluate(context)
        guard case .collection(let lists) = orderOfLast else {
            Issue.record("expected a collection, got \(orderOfLast)")
            return
        }
        let expected = Array(repeating: [ExpressionValue.string("swift"), .string("db")], count: 100).flatMap { $0 }
        #expect(lists == expected)
    }

    @Test("an object read without its to-many relationships is the full object once they are read")
    func partialReadsAgreeWithFullReads() throws {
        let folder = TemporaryDirectory()
        let (url, model) = try Self.makeStore(in: folder)
        let store = try ObjectStore.open(at: url, models: .model(model))
        for entity in ["Tag", "Post"] {
            for object in try store.objects(of: entity).all().prefix(5) {
                var partial = try #require(try store.object(object.id, readingToMany: false))
                #expect(partial.attributes == object.attributes)
                for link in try store.layout.requireEntity(entity).relationships where link.relationship.isToMany {
                    #expect(partial.relationships[link.relationship.name] == nil)
                    partial.relationships[link.relationship.name] = .toMany(
                        try store.toMany(link.relationship.name, of: object.id))
                }
                #expect(partial == object)
            }
        }
    }
}
