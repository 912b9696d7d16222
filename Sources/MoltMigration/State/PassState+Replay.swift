internal import MoltCore
internal import MoltMapping
internal import MoltStore

/// The writes a copy worker recorded for one source object, done on the writing thread.
extension PassState {
    /// Does `recording`'s writes for `source` in the order the hook asked for them, through the
    /// calls the hook would have made on this thread: the same keys are claimed, the same rows
    /// and keys at insert written, the same associations made.
    func replay(_ recording: CopyRecording, of source: SourceObject, mapping: EntityMapping) throws {
        var made: [ObjectID] = []
        made.reserveCapacity(recording.made.count)
        func resolve(_ object: CopyRecording.Made) -> ObjectID {
            switch object {
            case .new(let index): made[index]
            case .existing(let id): id
            }
        }
        for effect in recording.effects {
            switch effect {
            case .insert(let entity, let row, let plan, let byPolicy, let defaultOf):
                do {
                    made.append(
                        try insertNewObject(
                            entity, row: row, plan: byPolicy ? plan : nil,
                            mapping: byPolicy ? currentEntityMapping?.name : mapping.name, source: source,
                            byPolicy: byPolicy))
                } catch var error as MoltError {
                    guard let defaultOf else { throw error }
                    error.message = "\(mapping.name): \(defaultOf): \(error.message)"
                    throw error.about(entity: mapping.name)
                }
            case .setAttributes(let attributes, let object):
                try setAttributes(attributes, of: DestinationObject(id: resolve(object)))
            case .associate(let sourceID, let object, nil):
                try associate(source: sourceID, destination: resolve(object))
            case .associate(let sourceID, let object, let mappingName?):
                try associate(source: sourceID, destination: resolve(object), mapping: mappingName)
            }
        }
    }

    /// The default object of `source`, its row made on a worker: inserted and associated as
    /// ``createDefaultDestinationInstance(for:)`` does (its failures named alike).
    func insertDefault(
        _ entity: String, row: [AttributeValue?], of source: SourceObject, mapping: EntityMapping
    ) throws {
        let made: ObjectID
        do {
            made = try insertNewObject(entity, row: row, mapping: mapping.name, source: source, byPolicy: false)
        } catch var error as MoltError {
            error.message = "\(mapping.name): \(source.id): \(error.message)"
            throw error.about(entity: mapping.name)
        }
        try associate(source: source.id, destination: made)
    }
}
