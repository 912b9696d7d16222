public import Foundation
public import Logging
internal import MoltCore
public import MoltMapping

/// A mapping file an upgrade may use: the mapping read from it and where it came from.
///
/// Which versions a file connects is found from the models' hashes, not from its name (see
/// ``UpgradePlanner``). Read every mapping file of a folder with ``readFolder(_:logger:)``:
///
/// ```swift
/// let files = try UpgradeMappingFile.readFolder(URL(fileURLWithPath: "Mappings"))
/// for file in files { print(file.name, file.mapping.entityMappings.count) }
/// ```
public struct UpgradeMappingFile: Sendable, Hashable, CustomStringConvertible {
    /// The file's name (its last path component), for messages and forecasts.
    public let name: String
    /// Where the file is, when it was read from disk.
    public let url: URL?
    /// The mapping it holds.
    public let mapping: MappingModel

    /// A mapping held in memory; `name` identifies it in messages.
    public init(name: String, mapping: MappingModel, url: URL? = nil) {
        self.name = name
        self.mapping = mapping
        self.url = url
    }

    /// Reads the mapping file (or Xcode mapping model) at `url`; throws the file's first
    /// problem (with file and line).
    public init(contentsOf url: URL) throws {
        self.init(name: url.lastPathComponent, mapping: try MappingFile.read(contentsOf: url), url: url)
    }

    /// The path (or name) used in error locations.
    var path: String { url?.path ?? mapping.sourceFile ?? name }

    public var description: String { name }

    /// Reads every `*.xml` file and every Xcode mapping model (`*.xcmappingmodel` folder) of
    /// `folder`, in name order (numbers read as numbers: `A.2.xml` before `A.10.xml`; the
    /// order passes of one step run in, unless `PassOrder` says otherwise). A file with errors stops everything (the error names its file
    /// and line). An XML file whose root element is not `<mapping-model>` is not a mapping
    /// file: it is skipped, with a log line.
    public static func readFolder(
        _ folder: URL, logger: Logger = LibraryLogger.make("molt.upgrade")
    ) throws
        -> [UpgradeMappingFile]
    {
        try readFolder(folder, logger: logger, failed: nil)
    }

    /// ``readFolder(_:logger:)``, with each file that fails to read given to `failed` (and
    /// left out) instead of thrown, when `failed` is given.
    static func readFolder(
        _ folder: URL, logger: Logger, failed: ((URL, any Error) -> Void)?
    ) throws -> [UpgradeMappingFile] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            if !FileManager.default.fileExists(atPath: folder.path) { throw FileErrors.missing(folder.path) }
            throw FileErrors.readFailed(folder.path, underlying: error)
        }
        var files: [UpgradeMappingFile] = []
        let ordered = names.sorted { $0.compare($1, options: [.numeric]) == .orderedAscending }
        for name in ordered where !name.hasPrefix(".") {
            let url = folder.appendingPathComponent(name)
            do {
                if let file = try read(url, name: name, logger: logger) { files.append(file) }
            } catch {
                guard let failed else { throw error }
                failed(url, error)
            }
        }
        return files
    }

    /// The mapping file at `url`; nil for a file that is no mapping file (skipped).
    private static func read(_ url: URL, name: String, logger: Logger) throws -> UpgradeMappingFile? {
        if name.lowercased().hasSuffix(".xcmappingmodel") { return try UpgradeMappingFile(contentsOf: url) }
        guard name.lowercased().hasSuffix(".xml") else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw FileErrors.readFailed(url.path, underlying: error)
        }
        if let root = XMLRootName.of(data), root != "mapping-model" {
            logger.warning(
                "skipping an XML file that is not a mapping file",
                metadata: ["molt.file": "\(url.path)", "molt.root": "\(root)"])
            return nil
        }
        return try UpgradeMappingFile(contentsOf: url)
    }
}
