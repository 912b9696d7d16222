internal import Foundation
internal import MoltCore
internal import MoltMapping
internal import MoltModel

/// A mapping file with the two schemas it connects (indices into `UpgradeVersions.schemas`),
/// found once, by its hashes (``MappingFileMatcher``), and used by every later check.
/// Several files between the same two versions are the passes of one step: `file` is the
/// first, `passes` all of them in order.
struct MatchedMappingFile {
    let file: UpgradeMappingFile
    let from: Int
    let to: Int
    /// The version names the file declares (`source-model`, `destination-model`); nil when it
    /// declares none. Two files between the same schemas that declare different versions (two
    /// versions with the same hashes, or a file whose hashes say another version than its
    /// name) are alternatives, not passes of one step.
    let fromName: String?
    let toName: String?
    /// Whether the names it declares are names of the versions its hashes matched.
    let namesAgree: Bool
    var passes: [UpgradeMappingFile]

    init(file: UpgradeMappingFile, from: Int, to: Int, versions: UpgradeVersions) {
        self.file = file
        self.from = from
        self.to = to
        fromName = file.mapping.sourceModelName
        toName = file.mapping.destinationModelName
        namesAgree =
            (fromName.map { versions.schemas[from].isNamed($0) } ?? true)
            && (toName.map { versions.schemas[to].isNamed($0) } ?? true)
        passes = [file]
    }

    /// Whether `other` is another pass of this file's step: the same two schemas, and no
    /// version name that differs.
    func takes(_ other: MatchedMappingFile) -> Bool {
        from == other.from && to == other.to && Self.compatible(fromName, other.fromName)
            && Self.compatible(toName, other.toName)
    }

    private static func compatible(_ a: String?, _ b: String?) -> Bool {
        a == nil || b == nil || a == b
    }
}

/// Finds which versions a mapping file connects, by the entity version hashes it records,
/// never by its file name.
///
/// A schema matches a file's source side when every entity mapping that records a source hash
/// (`source-hash`, written by `molt stamp-mapping`) has an entity of that name with that hash
/// in the schema; likewise for the destination side. When several schemas match a side (the
/// file records too few hashes, or none), the version name the file declares
/// (`source-model`, `destination-model`) picks among them; when that leaves none or several,
/// the file is an error. The file must then pass ``MappingChecker`` against the two models.
struct MappingFileMatcher {
    let versions: UpgradeVersions

    /// What a file is to this upgrade: the versions it connects, or the reason it belongs to
    /// another model (it records hashes no version has, and names versions this model does not
    /// have: Core Data, looking through an app's mapping models, passes over it too).
    enum Match {
        case matched(MatchedMappingFile)
        case elsewhere(reason: String)
    }

    func classify(_ file: UpgradeMappingFile) throws -> Match {
        for source in [true, false] {
            let declared = source ? file.mapping.sourceModelName : file.mapping.destinationModelName
            if let declared, versions.schema(named: declared) == nil, candidates(of: file, source: source).isEmpty,
                !recorded(file, source: source).isEmpty
            {
                return .elsewhere(
                    reason:
                        "made for another model: no version has the \(source ? "source" : "destination") hashes it records, and none is called \"\(declared)\""
                )
            }
        }
        return .matched(try match(file))
    }

    func match(_ file: UpgradeMappingFile) throws -> MatchedMappingFile {
        let from = try side(of: file, source: true)
        let to = try side(of: file, source: false)
        let source = versions.schemas[from].model(preferring: file.mapping.sourceModelName)
        let destination = versions.schemas[to].model(preferring: file.mapping.destinationModelName)
        let errors = MappingChecker().check(file.mapping, source: source, destination: destination).errors
        if let first = errors.first {
            throw MoltError(
                .migration,
                "the mapping file (from \(source.name ?? "?") to \(destination.name ?? "?")) has \(errors.count == 1 ? "an error" : "\(errors.count) errors"); the first: \(first.message)",
                location: first.location ?? SourceLocation(file: file.path), entity: first.entity,
                property: first.property,
                recovery: "Run `molt check-mapping` on the file to see every problem; nothing was migrated.",
                details: errors.map(\.description))
        }
        return MatchedMappingFile(file: file, from: from, to: to, versions: versions)
    }

    /// The hashes one side of the file records, by entity.
    private func recorded(_ file: UpgradeMappingFile, source: Bool) -> [(entity: String, hash: Data)] {
        file.mapping.entityMappings.compactMap { mapping in
            if source, let entity = mapping.sourceEntityName, let hash = mapping.sourceVersionHash {
                return (entity, hash)
            }
            if !source, let entity = mapping.destinationEntityName, let hash = mapping.destinationVersionHash {
                return (entity, hash)
            }
            return nil
        }
    }

    /// The schemas whose hashes are those one side of the file records.
    private func candidates(of file: UpgradeMappingFile, source: Bool) -> [Int] {
        let recorded = recorded(file, source: source)
        return versions.schemas.indices.filter { index in
            recorded.allSatisfy { versions.schemas[index].hashes[$0.entity] == $0.hash }
        }
    }

    /// The schema one side of the file belongs to.
    private func side(of file: UpgradeMappingFile, source: Bool) throws -> Int {
        let label = source ? "source" : "destination"
        let recorded = recorded(file, source: source)
        let byHashes = candidates(of: file, source: source)
        let declared = source ? file.mapping.sourceModelName : file.mapping.destinationModelName
        if byHashes.count == 1 { return byHashes[0] }
        let location = SourceLocation(file: file.path)
        let stamp =
            "Run `molt stamp-mapping` on the file with its two model versions, so its hashes say which versions it connects."
        let elsewhere = " If the file belongs to another model, keep it out of this mappings folder."
        if byHashes.isEmpty {
            throw MoltError(
                .migration,
                "no model version has the \(label) entity hashes the mapping file records (\(recorded.map(\.entity).joined(separator: ", "))): it was made for a model Molt was not given, or the model changed since it was stamped",
                location: location,
                recovery:
                    "Check the mapping file against the models (`molt check-mapping`); if the model changed on purpose, update the file and \(stamp.prefix(1).lowercased() + stamp.dropFirst())\(elsewhere)"
            )
        }
        let candidates = byHashes.map { versions.schemas[$0].description }.joined(separator: ", ")
        if let declared {
            let named = byHashes.filter { versions.schemas[$0].isNamed(declared) }
            if named.count == 1 { return named[0] }
            if recorded.isEmpty, versions.schema(named: declared) == nil {
                throw MoltError(
                    .migration,
                    "the mapping file records no entity hashes, and its \(label) model \"\(declared)\" is not a version of the model (versions: \(versions.allNames.joined(separator: ", ")))",
                    location: location, recovery: stamp + elsewhere)
            }
            throw MoltError(
                .migration,
                "the mapping file's \(label) could be any of \(candidates), and none is called \"\(declared)\" as the file says",
                location: location, recovery: stamp + elsewhere)
        }
        throw MoltError(
            .migration,
            "the mapping file's \(label) could be any of \(candidates): it records too few hashes and names no \(label) model",
            location: location, recovery: stamp)
    }
}
