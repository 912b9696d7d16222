public import Foundation
internal import MoltCore

/// One store ``UpgradeVerification`` checks: a store file (its version found by its hashes), or a JSON
/// seed in a folder named after the model version it belongs to (made into a store of that
/// version first). `NAME.expected.json` beside it, when present, is what `molt dump --json` of
/// the upgraded store must print.
public struct VerificationFixture: Sendable {
    public enum Source: Sendable {
        case store(URL)
        /// A seed and the version named by its folder.
        case seed(URL, version: String)
    }

    public let source: Source
    /// How it is named in reports: its path as found under the folder given.
    public let name: String
    /// `NAME.expected.json` beside it, when there is one.
    public let expected: URL?

    public init(source: Source, name: String, expected: URL?) {
        self.source = source
        self.name = name
        self.expected = expected
    }

    /// The store or seed file.
    public var url: URL {
        switch source {
        case .store(let url), .seed(let url, _): url
        }
    }

    /// The fixtures under each of `paths` (a folder, searched recursively, or one file), in
    /// path order. Files that are neither stores nor seeds are left alone; a seed that is not
    /// inside a version's folder is an error naming it.
    public static func find(in paths: [String], versions: UpgradeVersions) throws -> [VerificationFixture] {
        var found: [VerificationFixture] = []
        for path in paths {
            let root = URL(fileURLWithPath: path).standardizedFileURL
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder) else {
                throw FileErrors.missing(root.path)
            }
            let files: [URL]
            if isFolder.boolValue {
                let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
                files = (walker?.allObjects as? [URL] ?? []).filter {
                    (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
                }
                .sorted { $0.path < $1.path }
            } else {
                files = [root]
            }
            for file in files {
                let display = isFolder.boolValue ? relative(file, to: root, prefix: path) : path
                if let fixture = try fixture(file, name: display, versions: versions) { found.append(fixture) }
            }
        }
        return found
    }

    private static func fixture(_ file: URL, name: String, versions: UpgradeVersions) throws -> VerificationFixture? {
        let fileName = file.lastPathComponent
        let base = file.deletingPathExtension().lastPathComponent
        let expected = file.deletingLastPathComponent().appendingPathComponent("\(base).expected.json")
        let hasExpected = FileManager.default.fileExists(atPath: expected.path)
        switch file.pathExtension {
        case "sqlite", "store":
            return VerificationFixture(source: .store(file), name: name, expected: hasExpected ? expected : nil)
        case "json" where !fileName.hasSuffix(".expected.json"):
            let version = file.deletingLastPathComponent().lastPathComponent
            guard versions.schema(named: version) != nil else {
                throw MoltError(
                    .missingSourceModel,
                    "the seed \(name) is in a folder named \"\(version)\", which is no version of the models given",
                    location: SourceLocation(file: file.path),
                    recovery:
                        "Put each JSON seed in a folder named after the model version it belongs to (one of: \(versions.allNames.joined(separator: ", ")))."
                )
            }
            return VerificationFixture(
                source: .seed(file, version: version), name: name, expected: hasExpected ? expected : nil)
        default:
            return nil
        }
    }

    private static func relative(_ file: URL, to root: URL, prefix: String) -> String {
        let rootPath = root.path.hasSuffix("/") ? root.path : root.path + "/"
        let tail = file.path.hasPrefix(rootPath) ? String(file.path.dropFirst(rootPath.count)) : file.lastPathComponent
        return (prefix.hasSuffix("/") ? prefix : prefix + "/") + tail
    }
}
