internal import Foundation
internal import Logging
internal import MoltMapping
internal import MoltModel
internal import MoltStore

/// What a policy's manager reaches on a copy worker: the run's models, mapping and user info
/// as on the writing thread; the source store through the shared reader; writes recorded in
/// the current object's ``CopyRecording``. Whatever needs the association table, the new store
/// or the source store's queries throws ``InOrderRequired`` (the hook then runs in order).
final class WorkerState: ManagerState {
    private unowned let pass: PassState
    let reading: SharedSourceReading
    /// The recording of the object whose hook is running.
    var recording: CopyRecording

    init(pass: PassState, reading: SharedSourceReading, recording: CopyRecording) {
        self.pass = pass
        self.reading = reading
        self.recording = recording
    }

    var sourceModel: ObjectModel { pass.sourceModel }
    var destinationModel: ObjectModel { pass.destinationModel }
    var mappingModel: MappingModel { pass.mappingModel }
    var passNumber: Int { pass.passNumber }
    var passCount: Int { pass.passCount }
    var logger: Logger { pass.logger }
    var currentEntityMapping: EntityMapping? { pass.currentEntityMapping }
    var startDate: Date { pass.startDate }
    var userInfo: MigrationUserInfo { pass.userInfo }
    var mappingUserInfo: [String: String] { pass.mappingUserInfo }
    var deferredError: (any Error)? {
        get { recording.deferredError }
        set { recording.deferredError = newValue }
    }
    var isCancelled: Bool { pass.isCancelled }

    func sourceEntity(for mapping: EntityMapping) -> Entity? { pass.sourceEntity(for: mapping) }
    func destinationEntity(for mapping: EntityMapping) -> Entity? { pass.destinationEntity(for: mapping) }
    func cancel(with error: (any Error & Sendable)?) { pass.cancel(with: error) }

    func sourceObject(_ id: ObjectID) throws -> SourceObject {
        try reading.sourceObject(id)
    }

    func sourceObject(_ id: ObjectID, includingDeleted: Bool) throws -> SourceObject {
        try reading.sourceObject(id, includingDeleted: includingDeleted)
    }

    func forEachSourceObject(of entity: String, filter: String?, _ body: (SourceObject) throws -> Void) throws {
        throw recording.requireOrder("forEachSourceObject")
    }

    var sourceStoreUUID: String { pass.sourceStoreUUID }
    var sourceContext: SourceContext { SourceContext(state: pass, worker: recording) }

    func sourceObjects(for destination: DestinationObject) throws -> [SourceObject] {
        throw recording.requireOrder("sourceObjects(for:)")
    }

    func destinationInstances(
        forEntityMappingNamed name: String, sourceInstances sources: [ObjectID]
    ) throws -> [DestinationObject] {
        throw recording.requireOrder("destinationInstances(forEntityMappingName:)")
    }

    func destinationInstances(
        forSourceRelationshipNamed name: String, sourceInstances sources: [ObjectID]
    ) throws -> [DestinationObject] {
        throw recording.requireOrder("destinationInstances(forSourceRelationshipNamed:)")
    }

    func sourceInstances(
        forEntityMappingNamed name: String, destinationInstances destinations: [DestinationObject]
    ) throws -> [ObjectID] {
        throw recording.requireOrder("sourceIDs(forEntityMappingName:)")
    }

    func associate(source: SourceObject, destination: DestinationObject) throws {
        try recording.associate(source: source.id, destination: destination, mapping: nil)
    }

    func associate(source: ObjectID, destination: ObjectID, mapping: String) throws {
        try recording.associate(source: source, destination: DestinationObject(id: destination), mapping: mapping)
    }

    var destinationCheckpoint: DestinationCheckpoint { DestinationCheckpoint(pass, recording: recording) }
}
