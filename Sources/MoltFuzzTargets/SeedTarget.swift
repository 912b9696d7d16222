internal import Foundation
internal import MoltCore
internal import MoltModel
internal import MoltStore

/// JSON seeds as a fuzz target: each input is imported into one empty store of the example
/// Blog model, in a transaction that is always rolled back.
final class SeedTarget: @unchecked Sendable {
    /// One store per process, in a temporary folder removed at exit.
    static let shared = SeedTarget()

    private let store: ObjectStore?
    private let lock = NSLock()
    private static let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("molt-fuzz-seed-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")

    private struct RollBack: Error {}

    private init() {
        guard let (model, _) = FuzzFiles.blogModels,
            (try? FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)) != nil
        else {
            store = nil
            return
        }
        atexit { try? FileManager.default.removeItem(at: SeedTarget.folder) }
        var options = StoreCreationOptions()
        options.usesWriteAheadLog = false
        store = try? ObjectStore.create(
            at: Self.folder.appendingPathComponent("Blog.sqlite"), model: model, options: options)
    }

    /// Imports the seed and rolls back; an import must succeed or throw a ``MoltError`` about
    /// the seed file (never an SQLite error, never another type).
    func run(_ data: Data) -> String? {
        guard let store else { return "the seed store could not be created" }
        lock.lock()
        defer { lock.unlock() }
        do {
            try store.write { writer in
                try ObjectsJSONImporter().importObjects(from: data, file: FuzzTarget.fileName, into: writer)
                throw RollBack()
            }
            return "the transaction was not rolled back"
        } catch is RollBack {
            return nil
        } catch {
            return Promises.refusal(error, codes: [.fileReadCorruptFile], needsLine: true)
        }
    }
}
