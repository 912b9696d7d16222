public import Foundation
internal import Logging
public import MoltCore
public import MoltModel
internal import MoltSQLite

/// A store's own model: the compiled model Core Data keeps in the store's `Z_MODELCACHE`
/// table (stores made since about 2016), inflated and decoded.
///
/// Core Data writes the model the store was made with there, so its version hashes normally
/// equal the store's. ``matchesStore`` says whether they do; only then may it stand in for a
/// missing source model (``SQLiteStore/sourceModel(from:allowsEmbeddedSourceModel:)``).
///
/// ```swift
/// let store = try SQLiteStore(at: url)
/// if let embedded = try store.embeddedModel() {
///     print(embedded.model.entities.map(\.name), embedded.matchesStore)
/// }
/// ```
public struct EmbeddedModel: Sendable {
    /// The name an embedded model carries (``/MoltModel/ObjectModel/name``), in messages and reports.
    public static let versionName = "embedded model"

    /// The model, named ``versionName``.
    public let model: ObjectModel
    /// What the compiled model held that Molt does not keep (none of it is hashed).
    public let notes: [String]
    /// How the model's entity version hashes compare with the store's.
    public let compatibility: StoreCompatibility
    /// The size of the compressed blob and of the keyed archive it inflates to.
    public let compressedSize: Int
    public let archiveSize: Int

    /// Whether the model's hashes equal the store's.
    public var matchesStore: Bool { compatibility.isCompatible }
}

/// The source model chosen for a store: a version given to Molt, or the store's own model.
public struct SourceModelChoice: Sendable {
    public let model: ObjectModel
    /// The store's embedded model, when no version given matched.
    public let embedded: EmbeddedModel?

    public var isEmbedded: Bool { embedded != nil }
}

extension SQLiteStore {
    /// The location errors about the model cache point at.
    var modelCacheLocation: SourceLocation { SourceLocation(file: path, element: "Z_MODELCACHE") }

    /// The raw `Z_MODELCACHE` blob (raw DEFLATE of a keyed archive); nil when the store has no
    /// such table or it is empty.
    public func modelCacheData() throws -> Data? {
        guard try hasModelCache() else { return nil }
        let rows = try StoreErrors.sqlite(path, "reading Z_MODELCACHE") {
            try connection.rows("SELECT Z_CONTENT FROM Z_MODELCACHE WHERE length(Z_CONTENT) > 0 LIMIT 2")
        }
        guard rows.count == 1 else {
            throw MoltError(
                .persistentStoreInvalidType, "Z_MODELCACHE holds \(rows.count) models; Core Data keeps one",
                location: modelCacheLocation)
        }
        guard case .blob(let data) = rows[0][0] else {
            throw MoltError(
                .persistentStoreInvalidType, "Z_MODELCACHE.Z_CONTENT is not a blob", location: modelCacheLocation)
        }
        return data
    }

    /// The store's embedded model; nil when the store has none. Errors name the store and
    /// `Z_MODELCACHE`: damaged compressed data, an archive that does not read, or a model with
    /// something Molt does not understand that could change its version hashes.
    public func embeddedModel(
        outputLimit: Int = Inflate.defaultOutputLimit, limits: CompiledModelDecoder.Limits = .init()
    ) throws -> EmbeddedModel? {
        guard let blob = try modelCacheData() else { return nil }
        let location = modelCacheLocation
        do {
            let archive = try Inflate(outputLimit: outputLimit).decompress(blob, name: "the model cache")
            let compiled = try CompiledModelDecoder(limits: limits).decode(archive, location: location)
            let model = compiled.model.named(EmbeddedModel.versionName, sourceFile: location.description)
            let compatibility = StoreCompatibility(
                storeHashes: metadata.entityVersionHashes, modelHashes: try model.entityVersionHashes())
            return EmbeddedModel(
                model: model, notes: compiled.notes, compatibility: compatibility, compressedSize: blob.count,
                archiveSize: archive.count)
        } catch let error as MoltError {
            throw error.located(location)
        }
    }

    /// The source model for migrating this store: the version of `source` whose hashes match
    /// (as ``matchingModel(from:)``), or, when none does and `allowsEmbeddedSourceModel` is set, the
    /// store's embedded model if its hashes match the store (logged at notice level: "using
    /// the store's embedded model: its hashes match the store"). Without a match either way
    /// it throws the error ``matchingModel(from:)`` gives, with what the embedded model
    /// lacks in its details.
    public func sourceModel(from source: ModelSource, allowsEmbeddedSourceModel: Bool) throws -> SourceModelChoice {
        do {
            return SourceModelChoice(model: try matchingModel(from: source), embedded: nil)
        } catch var error as MoltError
            where allowsEmbeddedSourceModel
            && (error.code == .incompatibleVersionHash || error.code == .missingSourceModel)
        {
            guard let embedded = try embeddedModel() else {
                error.details.append("the store has no embedded model (its Z_MODELCACHE is absent or empty)")
                throw error
            }
            guard embedded.matchesStore else {
                error.details.append("the store's embedded model does not match it either: \(embedded.compatibility)")
                throw error
            }
            connection.logger.notice(
                "using the store's embedded model: its hashes match the store",
                metadata: ["molt.store": "\(path)", "molt.entities": "\(embedded.model.entities.count)"])
            return SourceModelChoice(model: embedded.model, embedded: embedded)
        }
    }
}
