import ArgumentParser
import Foundation
import Molt

/// Reading the model a user names on the command line.
enum ModelArguments {
    /// The model source at `path`: one version, or a bundle.
    static func source(_ path: String) throws -> ModelSource {
        try ModelLoader().source(at: URL(fileURLWithPath: path))
    }

    /// One model: the given version of a bundle, its current version, or the single model.
    static func model(_ path: String, version: String?) throws -> ObjectModel {
        switch try source(path) {
        case .model(let model):
            if let version, version != model.name {
                throw MoltError(
                    .fileReadNoSuchFile, "--version \(version) names a bundle version, but this is a single model",
                    location: SourceLocation(file: path))
            }
            return model
        case .bundle(let bundle):
            return try version.map { try bundle.model(named: $0) } ?? bundle.currentModel()
        }
    }

    /// The models of a source: the one model, or every version of a bundle.
    static func allModels(_ path: String) throws -> [ObjectModel] {
        try source(path).candidateModels()
    }
}

/// The source and destination models of a mapping file, as check-mapping and stamp-mapping
/// take them.
struct ModelPairOptions: ParsableArguments {
    @Option(help: "The source model: .xcdatamodeld bundle, .xcdatamodel version or contents file.")
    var from: String

    @Option(help: "The destination model: .xcdatamodeld bundle, .xcdatamodel version or contents file.")
    var to: String

    @Option(name: .customLong("from-version"), help: "The source version of a bundle.")
    var fromVersion: String?

    @Option(name: .customLong("to-version"), help: "The destination version of a bundle.")
    var toVersion: String?

    /// The two models; from a bundle, the versions the options name, else those the mapping
    /// file names, else (for the destination) the bundle's current version.
    /// `file` names the mapping file in messages.
    func models(for mapping: MappingModel, file: String) throws -> (source: ObjectModel, destination: ObjectModel) {
        (
            try Self.model(
                from, version: fromVersion ?? mapping.sourceModelName, side: "source", useCurrent: false,
                namedBy: fromVersion == nil ? (file, mapping) : nil),
            try Self.model(
                to, version: toVersion ?? mapping.destinationModelName, side: "destination", useCurrent: true,
                namedBy: toVersion == nil ? (file, mapping) : nil)
        )
    }

    /// The model at `path`: its `version` (of a bundle), else its current version when
    /// `useCurrent`, else its only version. `namedBy` is the mapping file that named `version`
    /// (no option did): a bundle without it is then said to be of another model than the
    /// mapping's.
    static func model(
        _ path: String, version: String?, side: String, useCurrent: Bool,
        namedBy mapping: (file: String, model: MappingModel)? = nil
    ) throws -> ObjectModel {
        switch try ModelArguments.source(path) {
        case .model(let model):
            return model
        case .bundle(let bundle):
            if let version, bundle.version(named: version) != nil {
                return try bundle.model(named: version)
            }
            let versions = bundle.versions.map(\.name).joined(separator: ", ")
            let option = side == "source" ? "--from-version" : "--to-version"
            if let version, let mapping {
                // No option named the version: the mapping file did, so the file is what is
                // wrong (made for other versions, most likely of another model), not a name to
                // give: no mapping model for these versions, as Core Data would say (134140).
                let from = mapping.model.sourceModelName.map { "\"\($0)\"" } ?? "its source"
                let to = mapping.model.destinationModelName.map { "\"\($0)\"" } ?? "its destination"
                throw MoltError(
                    .missingMappingModel,
                    "the mapping \(mapping.file) is for other versions: it maps \(from) to \(to), and the bundle has no version \"\(version)\" (its versions: \(versions))",
                    location: SourceLocation(file: path),
                    recovery: "Give the mapping file made for this bundle's versions.")
            }
            if let version {
                throw MoltError(
                    .fileReadNoSuchFile, "the bundle has no version \"\(version)\" for the \(side) model",
                    location: SourceLocation(file: path), recovery: "Versions: \(versions). Name one with \(option).")
            }
            if useCurrent { return try bundle.currentModel() }
            if bundle.versions.count == 1 { return try bundle.model(named: bundle.versions[0].name) }
            throw MoltError(
                .fileReadNoSuchFile, "the bundle has several versions and nothing says which is the \(side) model",
                location: SourceLocation(file: path),
                recovery:
                    "Name it with --from-version (versions: \(bundle.versions.map(\.name).joined(separator: ", "))).")
        }
    }
}
