public import Foundation
public import Molt

/// Where the shared real-world fixtures are: `../shared/fixtures/real` beside the package
/// (or `$MOLT_FIXTURES`). A user's clone has no such folder; tests that need it are skipped
/// with a message saying so.
public enum Fixtures {
    /// The package's root folder.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The real fixtures folder, if present.
    public static let realFolder: URL? = {
        let candidates = [
            ProcessInfo.processInfo.environment["MOLT_FIXTURES"].map { URL(fileURLWithPath: $0) },
            packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/real"),
        ].compactMap { $0 }
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
    }()

    /// Whether the real fixtures are present.
    public static var available: Bool { realFolder != nil }

    /// The message shown when a test is skipped for lack of fixtures.
    public static let absentMessage =
        "../shared/fixtures/real is absent (a user's clone has none): skipping the test on Apple's real files"

    /// A path inside the real fixtures folder. Only call from tests enabled on ``available``.
    public static func real(_ relativePath: String) -> URL {
        realFolder!.appendingPathComponent(relativePath)
    }

    /// A file in the package (for example an example model under `MappingModels/`).
    public static func package(_ relativePath: String) -> URL {
        packageRoot.appendingPathComponent(relativePath)
    }
}

/// A fresh temporary folder, removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL

    public init(_ label: String = "molt-test") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// For a folder held by a static fixture (never released): removes it when the test
    /// process exits instead.
    public func removeAtExit() {
        ExitCleanup.register(url)
    }

    /// A path inside the folder.
    public func path(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// Writes `text` to `name` inside the folder (creating sub-folders) and returns its URL.
    @discardableResult
    public func write(_ text: String, to name: String) throws -> URL {
        let target = path(name)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: target)
        return target
    }

    /// Copies `source` (file or folder) into the folder, keeping its name, and makes it writable.
    @discardableResult
    public func copy(_ source: URL, as name: String? = nil) throws -> URL {
        let target = path(name ?? source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: target)
        try makeWritable(target)
        return target
    }

    private func makeWritable(_ url: URL) throws {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        _ = manager.fileExists(atPath: url.path, isDirectory: &isFolder)
        try manager.setAttributes([.posixPermissions: isFolder.boolValue ? 0o755 : 0o644], ofItemAtPath: url.path)
        if isFolder.boolValue {
            for child in try manager.contentsOfDirectory(atPath: url.path) {
                try makeWritable(url.appendingPathComponent(child))
            }
        }
    }
}

/// Builders for small models written the way Xcode writes them.
public enum ModelXML {
    /// A complete `contents` document around `body` (the `<entity>` elements), marked "Used
    /// with CloudKit" as Xcode marks it when `usedWithCloudKit`.
    public static func document(_ body: String, identifier: String = "", usedWithCloudKit: Bool = false) -> String {
        let cloudKit = usedWithCloudKit ? #" usedWithCloudKit="YES""# : ""
        return """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift"\(cloudKit) userDefinedModelVersionIdentifier="\(identifier)">
            \(body)
            </model>
            """
    }

    /// Writes a bundle `Name.xcdatamodeld` with the given versions (name → entity XML) into
    /// `folder`, marking `current` as the current version (and every version "Used with
    /// CloudKit" when `usedWithCloudKit`).
    @discardableResult
    public static func writeBundle(
        _ name: String, versions: [(String, String)], current: String?, in folder: TemporaryDirectory,
        usedWithCloudKit: Bool = false
    ) throws -> URL {
        for (version, body) in versions {
            try folder.write(
                document(body, usedWithCloudKit: usedWithCloudKit),
                to: "\(name).xcdatamodeld/\(version).xcdatamodel/contents")
        }
        if let current {
            try folder.write(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <dict>
                \t<key>_XCCurrentVersionName</key>
                \t<string>\(current).xcdatamodel</string>
                </dict>
                </plist>
                """, to: "\(name).xcdatamodeld/.xccurrentversion")
        }
        return folder.path("\(name).xcdatamodeld")
    }
}

/// The example model and files under `MappingModels/Examples`.
public enum Examples {
    /// `MappingModels/Examples/Blog.xcdatamodeld`.
    public static let bundle = Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld")

    /// A version of the example model: "Blog" (the first) or "Blog 2" (the current).
    public static func model(_ version: String = "Blog") throws -> ObjectModel {
        try ModelBundle(url: bundle).model(named: version)
    }
}

/// Folders removed when the process exits (static fixtures outlive every test).
enum ExitCleanup {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var folders: [URL] = []
    nonisolated(unsafe) private static var installed = false

    static func register(_ url: URL) {
        lock.lock()
        defer { lock.unlock() }
        folders.append(url)
        if !installed {
            installed = true
            atexit { ExitCleanup.removeAll() }
        }
    }

    static func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        for folder in folders { try? FileManager.default.removeItem(at: folder) }
        folders = []
    }
}
