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

    /// Reads the mapping file at `url`; throws the file's first problem (with file and line).
    public init(contentsOf url: URL) throws {
        self.init(name: url.lastPathComponent, mapping: try MappingReader().read(contentsOf: url), url: url)
    }

    /// The path (or name) used in error locations.
    var path: String { url?.path ?? mapping.sourceFile ?? name }

    public var description: String { name }

    /// Reads every `*.xml` file of `folder`, in name order. A file with errors stops everything
    /// (the error names its file and line). An XML file whose root element is not
    /// `<mapping-model>` is not a mapping file: it is skipped, with a log line.
    public static func readFolder(
        _ folder: URL, logger: Logger = Logger(label: "molt.upgrade")
    ) throws
        -> [UpgradeMappingFile]
    {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            if !FileManager.default.fileExists(atPath: folder.path) { throw FileErrors.missing(folder.path) }
            throw FileErrors.readFailed(folder.path, underlying: error)
        }
        var files: [UpgradeMappingFile] = []
        for name in names.sorted() where name.lowercased().hasSuffix(".xml") && !name.hasPrefix(".") {
            let url = folder.appendingPathComponent(name)
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
                continue
            }
            files.append(try UpgradeMappingFile(contentsOf: url))
        }
        return files
    }
}

/// The name of an XML document's root element, read from its first bytes without parsing the
/// document: enough to tell a mapping file from other XML. Nil when it cannot be told (the
/// mapping reader then reports what is wrong).
enum XMLRootName {
    static func of(_ data: Data) -> String? {
        var text = Substring(String(decoding: data.prefix(64 * 1024), as: UTF8.self))
        if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
        while true {
            text = text.drop { $0.isWhitespace }
            if text.hasPrefix("<?") {
                guard let end = text.range(of: "?>") else { return nil }
                text = text[end.upperBound...]
            } else if text.hasPrefix("<!--") {
                guard let end = text.range(of: "-->") else { return nil }
                text = text[end.upperBound...]
            } else if text.hasPrefix("<!") {
                guard let end = text.firstIndex(of: ">") else { return nil }
                text = text[text.index(after: end)...]
            } else if text.hasPrefix("<") {
                let name = text.dropFirst().prefix { !$0.isWhitespace && $0 != ">" && $0 != "/" }
                return name.isEmpty ? nil : String(name)
            } else {
                return nil
            }
        }
    }
}
