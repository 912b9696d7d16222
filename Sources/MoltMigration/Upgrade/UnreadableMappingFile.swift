public import Foundation
public import Logging
public import MoltCore
internal import MoltMapping

/// A file of a mappings folder that could not be read as a mapping: not parsed, not valid, or
/// not readable at all, with the versions it says it connects when its root element still
/// says so (`source-model`, `destination-model` of a Molt file).
///
/// Core Data loads the mapping model of the step it runs and no other, so such a file stops
/// an upgrade only when it may belong to a step the upgrade takes: its declared versions both
/// lie on the upgrade's path (it could be that step's mapping, a pass of it, or a way around
/// it), or it declares none Molt can match. Otherwise the plan lists it as not used, saying
/// why it could not be read (``UpgradePlanner``).
public struct UnreadableMappingFile: Sendable, CustomStringConvertible {
    /// The file's name in its folder.
    public let name: String
    public let url: URL?
    /// Why it could not be read (with file and line where known).
    public let error: MoltError
    /// The version names its root element declares, when it could be read that far.
    public let sourceModelName: String?
    public let destinationModelName: String?

    public init(
        name: String, url: URL? = nil, error: MoltError, sourceModelName: String? = nil,
        destinationModelName: String? = nil
    ) {
        self.name = name
        self.url = url
        self.error = error
        self.sourceModelName = sourceModelName
        self.destinationModelName = destinationModelName
    }

    public var description: String { "\(name): \(error.message)" }

    /// The file at `url` that failed to read with `error`, with what its root element declares.
    static func failed(_ url: URL, _ error: any Error) -> UnreadableMappingFile {
        let moltError =
            (error as? MoltError) ?? FileErrors.readFailed(url.path, underlying: error)
        let attributes = (try? Data(contentsOf: url)).map(XMLRootName.rootAttributes) ?? [:]
        return UnreadableMappingFile(
            name: url.lastPathComponent, url: url, error: moltError,
            sourceModelName: attributes["source-model"], destinationModelName: attributes["destination-model"])
    }
}

extension UpgradeMappingFile {
    /// Reads a mappings folder as ``readFolder(_:logger:)`` does, except that a file that
    /// cannot be read is set aside (``UnreadableMappingFile``) instead of stopping everything:
    /// the planner decides whether the upgrade needs it. A folder that cannot be listed
    /// still throws.
    public static func readFolderKeepingUnreadable(
        _ folder: URL, logger: Logger = LibraryLogger.make("molt.upgrade")
    ) throws -> (files: [UpgradeMappingFile], unreadable: [UnreadableMappingFile]) {
        var unreadable: [UnreadableMappingFile] = []
        let files = try readFolder(folder, logger: logger) { url, error in
            unreadable.append(.failed(url, error))
        }
        return (files, unreadable)
    }
}
