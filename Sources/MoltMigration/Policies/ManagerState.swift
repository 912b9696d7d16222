internal import Foundation
internal import Logging
internal import MoltMapping
internal import MoltModel
internal import MoltStore

/// What ``MigrationManager`` may reach of the passes' state (`PassState`, which conforms):
/// everything a policy needs but the destination store, which it reaches only through
/// ``checkpoint`` (`DestinationCheckpoint`).
///
/// Why a protocol: the manager holds the state as this, so a method added to the manager
/// cannot read or change the new store without passing the checkpoint; it does not compile.
/// A requirement added here must not touch the destination store's objects (the association
/// table's IDs and the models are not its objects).
protocol ManagerState: AnyObject {
    var sourceModel: ObjectModel { get }
    var destinationModel: ObjectModel { get }
    var mappingModel: MappingModel { get }
    var passNumber: Int { get }
    var passCount: Int { get }
    var logger: Logger { get }
    var currentEntityMapping: EntityMapping? { get }
    var startDate: Date { get }
    var userInfo: MigrationUserInfo { get }
    var mappingUserInfo: [String: String] { get }
    /// What a non-throwing call (Core Data's `associate`) failed with, thrown when the hook returns.
    var deferredError: (any Error)? { get set }
    var isCancelled: Bool { get }

    func sourceEntity(for mapping: EntityMapping) -> Entity?
    func destinationEntity(for mapping: EntityMapping) -> Entity?
    func cancel(with error: (any Error & Sendable)?)

    // The source store, only read.
    func sourceObject(_ id: ObjectID) throws -> SourceObject
    func sourceObject(_ id: ObjectID, includingDeleted: Bool) throws -> SourceObject
    func forEachSourceObject(of entity: String, filter: String?, _ body: (SourceObject) throws -> Void) throws
    /// The source store's UUID, which its objects' URIs name.
    var sourceStoreUUID: String { get }
    /// The source store as a policy queries it.
    var sourceContext: SourceContext { get }

    // The association table: IDs of objects, not their rows.
    func sourceObjects(for destination: DestinationObject) throws -> [SourceObject]
    func destinationInstances(
        forEntityMappingNamed name: String, sourceInstances sources: [ObjectID]
    ) throws -> [DestinationObject]
    func destinationInstances(
        forSourceRelationshipNamed name: String, sourceInstances sources: [ObjectID]
    ) throws -> [DestinationObject]
    func sourceInstances(
        forEntityMappingNamed name: String, destinationInstances destinations: [DestinationObject]
    ) throws -> [ObjectID]
    func associate(source: SourceObject, destination: DestinationObject) throws
    func associate(source: ObjectID, destination: ObjectID, mapping: String) throws

    /// The only way to the destination store.
    var destinationCheckpoint: DestinationCheckpoint { get }
}

extension PassState: ManagerState {
    var sourceStoreUUID: String { source.store.metadata.storeUUID }

    var sourceContext: SourceContext { SourceContext(state: self) }
}
