import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Makes each Book with Core Data's spellings: `associate` in a `defer`, then in `end` the
/// object-returning instance lookups, object URIs both ways, the destination model and the
/// registered objects.
final class PortedBookPolicy: EntityMigrationPolicy {
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let book = try manager.destinationContext.insertNewObject(
            forEntityName: "Book", attributes: ["title": try source.value("title"), "year": try source.value("year")])
        defer { manager.associate(sourceInstance: source, withDestinationInstance: book, for: mapping) }
        if try source.text("title") == "Quoted", mapping.userInfoDictionary["failOnQuoted"] != nil {
            // A port that names a mapping the model does not have: the failure surfaces when the
            // hook returns.
            manager.associate(
                sourceInstance: source, withDestinationInstance: book,
                for: EntityMapping(name: "NoSuchMapping", kind: .transform))
        }
    }

    override func end(_ mapping: EntityMapping, manager: MigrationManager) throws {
        let dune = try manager.sourceObject(ObjectID(entity: "Book", primaryKey: 1))
        let made = try manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [dune])
        let back = try manager.sourceInstances(forEntityMappingName: mapping.name, destinationInstances: made)
        let sourceURI = manager.uriRepresentation(of: dune)
        let destinationURI = manager.uriRepresentation(of: made[0])
        let context = manager.destinationContext
        for note in [
            "made \(made.map(\.id)), back \(try back.map { try $0.text("title") ?? "?" })",
            "source URI \(sourceURI.scheme!)://…\(sourceURI.path) → \(try manager.sourceContext.object(forURIRepresentation: sourceURI)?.id.description ?? "nil")",
            "destination URI \(destinationURI.path) → \(try context.object(forURIRepresentation: destinationURI)?.id.description ?? "nil")",
            "source URI in the destination → \(try context.object(forURIRepresentation: sourceURI)?.id.description ?? "nil")",
            "model \(context.model.name ?? "?"), registered \(try context.registeredObjects.count)",
        ] {
            PolicyNotes.shared.add(manager, note)
        }
    }
}

@Suite("Core Data's spellings in policies")
struct CoreDataPortingTests {
    let folder = TemporaryDirectory("molt-porting")

    func setUp(userInfo: String = "") throws -> (store: URL, v1: ObjectModel, v2: ObjectModel, mapping: MappingModel) {
        CompiledPolicies.register([PortedBookPolicy.self])
        let bundle = try ModelXML.writeBundle(
            "Library", versions: [("Library", PolicyQueryTests.v1), ("Library 2", PolicyQueryTests.v2)],
            current: "Library 2", in: folder)
        let models = try ModelBundle(url: bundle)
        let v1 = try models.model(named: "Library")
        let store = try MigrationFixtures.store("Library.sqlite", in: folder, model: v1, seed: PolicyQueryTests.seed)
        return (
            store, v1, try models.model(named: "Library 2"),
            try PolicyQueryTests.mapping(bookPolicy: "PortedBookPolicy", extra: userInfo)
        )
    }

    @Test("associate in defer, object-returning instance lookups, URIs both ways, the model and registered objects")
    func spellings() throws {
        let (store, v1, v2, mapping) = try setUp()
        let report = try HeavyweightMigration(store: store, source: v1, destination: v2, mapping: mapping).run()
        #expect(report.destinationCounts["Book"] == 5)
        let uuid = try SQLiteStore(at: store).metadata.storeUUID
        #expect(!uuid.isEmpty)
        #expect(PolicyNotes.shared.notes(folder).count == 5)
        #expect(
            PolicyNotes.shared.notes(folder) == [
                "made [Book/1], back [\"Dune\"]",
                "source URI x-coredata://…/Book/p1 → Book/1",
                "destination URI /Book/p1 → Book/1",
                // The new store keeps the store's UUID, and Dune kept its key: a URI an app saved
                // before the migration still names the book after it.
                "source URI in the destination → Book/1",
                "model Library 2, registered 8",
            ])
    }

    @Test("a non-throwing associate that fails stops the migration when the hook returns, naming hook and object")
    func deferredFailure() throws {
        let (store, v1, v2, mapping) = try setUp(
            userInfo: #"<user-info key="failOnQuoted" value="yes"/>"#)
        let error = try FailedRun.expectUntouched(store) {
            try HeavyweightMigration(store: store, source: v1, destination: v2, mapping: mapping).run()
        }
        #expect(error?.message.contains("NoSuchMapping") == true, "\(String(describing: error))")
    }
}
