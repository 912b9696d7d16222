import Foundation

/// The bytes of a file, or of every file in a folder, by path: taken before
/// and after a hostile input is read, to prove the input was not changed.
struct Snapshot: Equatable {
    let contents: [String: Data]

    init(_ url: URL) throws {
        var contents: [String: Data] = [:]
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            self.contents = [:]
            return
        }
        let files: [String] =
            isFolder.boolValue ? (manager.enumerator(atPath: url.path)?.compactMap { $0 as? String } ?? []) : [""]
        for file in files {
            let path = file.isEmpty ? url.path : url.appendingPathComponent(file).path
            var isSubfolder: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isSubfolder), !isSubfolder.boolValue else { continue }
            contents[file] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        self.contents = contents
    }
}
