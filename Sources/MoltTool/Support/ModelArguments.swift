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
