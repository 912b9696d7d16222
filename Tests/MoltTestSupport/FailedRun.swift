public import Foundation
public import Molt
public import Testing

/// What the suites that make migrations fail share: a run expected to fail with a ``MoltError``,
/// after which the store's bytes, and the files beside it, are as they were.
public enum FailedRun {
    /// Runs `body`, expects a ``MoltError``, checks `store` is byte for byte as before and, with
    /// a `folder`, that the folder holds the same files (nothing left beside the store).
    @discardableResult
    public static func expectUntouched(
        _ store: URL, folder: TemporaryDirectory? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) throws -> MoltError? {
        let before = try Data(contentsOf: store)
        let files = try folder.map(fileNames)
        let error = #expect(throws: MoltError.self, sourceLocation: sourceLocation) { try body() }
        #expect(
            StoreBytes.same(try Data(contentsOf: store), before), "the store's bytes are unchanged",
            sourceLocation: sourceLocation)
        if let folder {
            #expect(try fileNames(folder) == files, "nothing is left beside the store", sourceLocation: sourceLocation)
        }
        return error
    }

    /// Every file in `folder`, sorted.
    public static func fileNames(_ folder: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }
}

/// A policy that makes each source object's default destination object and refuses the
/// object it is told to (counted from 1 in the order it is called; a policy is made once per
/// run). Suites subclass it to fail a migration part-way.
open class RefusingPolicy: EntityMigrationPolicy {
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// Which object is refused, counted from 1.
    open class var refusedObject: Int { 2 }
    /// What the refusal says.
    open class var refusal: String { "this policy refuses object \(refusedObject)" }

    private var seen = 0

    public required init() {}

    public override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        seen += 1
        if seen == Self.refusedObject { throw Refusal(description: Self.refusal) }
        try makeDestination(for: source, mapping: mapping, manager: manager)
    }

    /// Makes the destination of an object that is not refused (by default Core Data's).
    open func makeDestination(for source: SourceObject, mapping: EntityMapping, manager: MigrationManager) throws {
        _ = try manager.createDefaultDestinationInstance(for: source)
    }
}

/// A store file's bytes compared as a failed migration must leave them: every byte the same
/// but the header's change counter (bytes 24–27), the counter its version number is valid for
/// (92–95) and the version of SQLite that last wrote it (96–99). A migration into a new file takes a store in WAL mode out of it while it runs
/// and puts it back when it fails, and SQLite counts each of those as a change of the file;
/// no page, and no other header field, may differ.
public enum StoreBytes {
    public static func same(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count, a.count >= 100 else { return a == b }
        let x = [UInt8](a)
        let y = [UInt8](b)
        return x[0..<24] == y[0..<24] && x[28..<92] == y[28..<92] && x[100...] == y[100...]
    }
}
