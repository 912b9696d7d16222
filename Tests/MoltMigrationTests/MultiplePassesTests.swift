import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltPolicies
import MoltStore
import MoltTestSupport
import Testing

/// Fails in pass 2, after pass 1 has made objects.
final class FailingSecondPassPolicy: EntityMigrationPolicy {
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        if try source.value("postId") == .integer(102) {
            throw PassTestError.refused("post 102 cannot be linked")
        }
    }
}

/// Pass 2 of a step whose pass 1 leaves a required attribute empty: sets it on every post.
final class TitleFillingPolicy: EntityMigrationPolicy {
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        var request = FetchRequest(entityName: "Post")
        request.predicate = ObjectPredicate(format: "postId == %@", try source.value("postId"))
        for post in try manager.destinationContext.fetch(request) {
            try manager.destinationContext.setValue(try source.text("title"), forKey: "title", of: post)
        }
    }
}

/// Counts, in the manager's shared userInfo, the objects each pass saw.
final class PassCountingPolicy: EntityMigrationPolicy {
    required init() {}

    override func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {
        try manager.userInfo.modify("begins", default: [String]()) {
            $0.append("\(manager.passNumber):\(mapping.name)")
        }
    }

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        if manager.passNumber == 1 {
            _ = try manager.createDefaultDestinationInstance(for: source)
        }
        try manager.userInfo.modify("seen", default: 0) { $0 += 1 }
    }

    override func end(_ mapping: EntityMapping, manager: MigrationManager) throws {
        guard manager.passNumber == manager.passCount else { return }
        let begins = manager.userInfo["begins", as: [String].self] ?? []
        let seen = manager.userInfo["seen", as: Int.self] ?? 0
        // Pass 2 sees pass 1's notes: the userInfo is the migration's, not the pass's.
        guard begins == ["1:AccountToUser", "2:AccountAgain"], seen == 10 else {
            throw PassTestError.refused("userInfo did not carry over: \(begins) \(seen)")
        }
    }
}

enum PassTestError: Error {
    case refused(String)
}

@Suite("Several mapping models run as passes of one step into one new store")
struct MultiplePassesTests {
    let folder = TemporaryDirectory()
    static let bundle = Fixtures.package("MappingModels/Examples/Forum.xcdatamodeld")

    func setUp() throws -> (store: URL, v1: ObjectModel, v2: ObjectModel) {
        MigrationFixtures.registerPolicies()
        CompiledPolicies.register([FailingSecondPassPolicy.self, TitleFillingPolicy.self, PassCountingPolicy.self])
        let models = try ModelBundle(url: Self.bundle)
        let v1 = try models.model(named: "Forum")
        let seed = try Data(contentsOf: Fixtures.package("MappingModels/Examples/Forum.json"))
        let store = try MigrationFixtures.store("Forum.sqlite", in: folder, model: v1, seed: seed)
        return (store, v1, try models.model(named: "Forum 2"))
    }

    static func passes() throws -> [MappingModel] {
        try [
            MigrationFixtures.mapping("Forum/Forum-to-Forum2.1.xml"),
            MigrationFixtures.mapping("Forum/Forum-to-Forum2.2.xml"),
        ]
    }

    @Test("the Forum example migrates through its two passes exactly as expected (the three worked ports)")
    func forumExample() throws {
        let (store, v1, v2) = try setUp()
        let report = try HeavyweightMigration(store: store, source: v1, destination: v2, mappings: try Self.passes())
            .run()
        let expected = try String(contentsOf: Fixtures.package("MappingModels/Examples/Forum2.json"), encoding: .utf8)
        #expect(try MigrationFixtures.dump(store, bundle: Self.bundle) == expected)
        #expect(report.passes == 2)
        #expect(
            report.mappings.map { "\($0.pass) \($0.mapping)" } == [
                "1 AccountToUser", "1 PostToPost", "1 DraftToDraft", "2 PostAuthors",
            ])
        #expect(report.deletedObjects == 2, "the two later sign-ups")
        #expect(report.destinationCounts == ["Draft": 3, "Post": 5, "Topic": 3, "User": 3])
        #expect(try MigrationFixtures.files(folder) == ["Forum.sqlite"])
    }

    @Test("progress runs from 0 to 1 once across the passes, naming each pass")
    func progressAcrossPasses() throws {
        let (store, v1, v2) = try setUp()
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var reports: [MigrationProgress] = []
        }
        let seen = Seen()
        let context = RunContext(progress: { progress in
            seen.lock.lock()
            seen.reports.append(progress)
            seen.lock.unlock()
        })
        try HeavyweightMigration(
            store: store, source: v1, destination: v2, mappings: try Self.passes(), context: context
        )
        .run()
        let fractions = seen.reports.map(\.fraction)
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 }, "\(seen.reports.map(\.description))")
        #expect(fractions.last == 1)
        #expect(seen.reports.contains { $0.pass == .copy && $0.mappingPass == 2 && $0.mappingPasses == 2 })
        let relateOfFirst = try #require(seen.reports.last { $0.pass == .relate && $0.mappingPass == 1 })
        #expect(abs(relateOfFirst.fraction - 0.4) < 1e-9, "copy 1, relate 1, copy 2, relate 2, validate")
        #expect(relateOfFirst.description.hasPrefix("40% overall · relate (pass 1 of 2)"), "\(relateOfFirst)")
    }

    @Test("a failure in pass 2 leaves the store as it was, with nothing beside it")
    func failureInLaterPass() throws {
        let (store, v1, v2) = try setUp()
        var passes = try Self.passes()
        passes[1].entityMappings[0].policyName = "FailingSecondPassPolicy"
        let error = try #require(
            try FailedRun.expectUntouched(store, folder: folder) {
                try HeavyweightMigration(store: store, source: v1, destination: v2, mappings: passes).run()
            })
        #expect(error.code == .entityMigrationPolicy)
        #expect(error.message.contains("PostAuthors"), "\(error.message)")
        #expect(error.message.contains("post 102 cannot be linked"), "\(error.message)")
    }

    @Test("validation runs once, after the last pass: pass 1 may leave what pass 2 completes")
    func validatedOnceAtTheEnd() throws {
        let (store, v1, v2) = try setUp()
        var passes = try Self.passes()
        // Pass 1 leaves Post.title (required) empty; pass 2 fills it in.
        let postMapping = try #require(passes[0].entityMappings.firstIndex { $0.name == "PostToPost" })
        passes[0].entityMappings[postMapping].attributeMappings.append(
            PropertyMapping(name: "title", value: .noValue))
        passes[1].entityMappings[0].policyName = "TitleFillingPolicy"
        try HeavyweightMigration(store: store, source: v1, destination: v2, mappings: passes).run()
        let migrated = try ObjectStore.open(at: store, models: .bundle(try ModelBundle(url: Self.bundle)))
        let post = try #require(try migrated.object(ObjectID(entity: "Post", primaryKey: 1)))
        #expect(post.attributes["title"] == .string("Hello, forum"))

        // Without pass 2 the same pass 1 fails validation, naming each post.
        let (again, _, _) = try setUp(fresh: true)
        let error = try #require(throws: MoltError.self) {
            try HeavyweightMigration(store: again, source: v1, destination: v2, mappings: [passes[0]]).run()
        }
        #expect(error.code == .validationMultiple)
        #expect(error.details.first == "Post/1.title: is not optional but has no value (1570)")
    }

    @Test("the manager's userInfo is shared by every pass; each pass starts with no associations")
    func userInfoAcrossPasses() throws {
        let (store, v1, v2) = try setUp()
        let first = try MigrationFixtures.mapping(
            text: """
                <mapping-model format="1" source-model="Forum" destination-model="Forum 2">
                    <entity-mapping name="AccountToUser" type="transform" source="Account" destination="User" policy="PassCountingPolicy"/>
                    <entity-mapping name="PostToNothing" type="remove" source="Post"/>
                    <entity-mapping name="DraftToNothing" type="remove" source="Draft"/>
                </mapping-model>
                """)
        let second = try MigrationFixtures.mapping(
            text: """
                <mapping-model format="1" source-model="Forum" destination-model="Forum 2">
                    <entity-mapping name="AccountAgain" type="custom" source="Account" destination="User" policy="PassCountingPolicy"/>
                </mapping-model>
                """)
        // The end hook of pass 2 checks what pass 1 wrote (it throws otherwise); duplicates
        // of userId fail the uniqueness constraint, so only distinct accounts are seeded.
        let seed = Data(
            """
            {"entities": {"Account": [
              {"@id": "Account/1", "handle": "a", "userId": 1}, {"@id": "Account/2", "handle": "b", "userId": 2},
              {"@id": "Account/3", "handle": "c", "userId": 3}, {"@id": "Account/4", "handle": "d", "userId": 4},
              {"@id": "Account/5", "handle": "e", "userId": 5}
            ]}, "format": "molt-objects", "version": 1}
            """.utf8)
        try FileManager.default.removeItem(at: store)
        try MigrationFixtures.store("Forum.sqlite", in: folder, model: v1, seed: seed)
        let report = try HeavyweightMigration(store: store, source: v1, destination: v2, mappings: [first, second])
            .run()
        #expect(report.destinationCounts["User"] == 5)
        #expect(report.mappings.map(\.destinationObjects) == [5, 0])
    }

    @Test("a duplicate left in place fails the uniqueness constraint with 133021 after every end hook")
    func uniquenessCheckedLast() throws {
        let (store, v1, v2) = try setUp()
        var passes = try Self.passes()
        passes[0].entityMappings[0].policyName = nil
        let error = try #require(throws: MoltError.self) {
            try HeavyweightMigration(store: store, source: v1, destination: v2, mappings: passes).run()
        }
        #expect(error.code == .validationMultiple)
        #expect(
            error.details == [
                "User/1.userId: 2 objects share these values of a uniqueness constraint (User/1, User/3) (133021)",
                "User/2.userId: 2 objects share these values of a uniqueness constraint (User/2, User/5) (133021)",
            ])
    }

    @Test("passes must name the same two versions")
    func passesOfOneStep() throws {
        let (store, v1, v2) = try setUp()
        var passes = try Self.passes()
        passes[1].destinationModelName = "Forum 3"
        let error = try #require(throws: MoltError.self) {
            try HeavyweightMigration(store: store, source: v1, destination: v2, mappings: passes).run()
        }
        #expect(error.message.contains("pass 2"), "\(error.message)")
    }

    func setUp(fresh: Bool) throws -> (store: URL, v1: ObjectModel, v2: ObjectModel) {
        let models = try ModelBundle(url: Self.bundle)
        let v1 = try models.model(named: "Forum")
        let seed = try Data(contentsOf: Fixtures.package("MappingModels/Examples/Forum.json"))
        let store = try MigrationFixtures.store("Forum-again.sqlite", in: folder, model: v1, seed: seed)
        return (store, v1, try models.model(named: "Forum 2"))
    }
}
