public import Foundation
public import MoltCore

/// Reads a mapping file of either format: Molt's XML (``MappingReader``) or an Xcode mapping
/// model (``XcodeMappingReader``), told apart by the path and the contents. This is what
/// `molt migrate --mapping`, `molt check-mapping` and `molt upgrade`'s folder scan read.
///
/// ```swift
/// let mapping = try MappingFile.read(contentsOf: URL(fileURLWithPath: "Model9to10.xcmappingmodel"))
/// let same = try MappingFile.read(contentsOf: URL(fileURLWithPath: "Model9-to-Model10.xml"))
/// ```
public enum MappingFile {
    /// The two formats.
    public enum Format: String, Sendable, Hashable {
        /// Molt's own XML (`<mapping-model>`), documented in `MappingModels/README.md`.
        case molt
        /// An Xcode mapping model (`.xcmappingmodel/xcmapping.xml`, `<database>`).
        case xcode
    }

    /// The format of what `url` names: Xcode's for a folder (a `.xcmappingmodel`, or any folder,
    /// whose reader then says what it lacks), an `xcmapping.xml`, or a file whose root element
    /// is `<database>`; Molt's otherwise.
    public static func format(of url: URL) -> Format {
        if XcodeMappingReader.isXcodeMappingModel(url) { return .xcode }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            return .xcode
        }
        guard let handle = try? FileHandle(forReadingFrom: url) else { return .molt }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 64 * 1024) else { return .molt }
        return XMLRootName.of(head) == "database" ? .xcode : .molt
    }

    /// Reads the mapping file at `url`; throws its first problem (with file and line).
    /// `displayName` (default: the path) names it in messages.
    public static func read(contentsOf url: URL, displayName: String? = nil) throws -> MappingModel {
        switch format(of: url) {
        case .molt:
            return try MappingReader().read(contentsOf: url, displayName: displayName)
        case .xcode:
            return try XcodeMappingReader().read(contentsOf: url, displayName: displayName)
        }
    }

    /// Reads the mapping file at `url`, collecting its problems as diagnostics (what
    /// `molt check-mapping` prints). The model is nil when the file is not usable. Throws only
    /// when the file cannot be read at all. An Xcode mapping model stops at its first problem.
    public static func readReportingAll(
        contentsOf url: URL, displayName: String? = nil
    ) throws -> (MappingModel?, [Diagnostic]) {
        switch format(of: url) {
        case .molt:
            return try MappingReader().readReportingAll(contentsOf: url, displayName: displayName)
        case .xcode:
            do {
                return (try XcodeMappingReader().read(contentsOf: url, displayName: displayName), [])
            } catch let error as MoltError
                where ![.fileReadNoSuchFile, .fileReadNoPermission, .fileReadUnknown].contains(error.code)
            {
                return (
                    nil,
                    [
                        Diagnostic(
                            .error, error.message, location: error.location, entity: error.entity,
                            property: error.property)
                    ]
                )
            }
        }
    }
}
