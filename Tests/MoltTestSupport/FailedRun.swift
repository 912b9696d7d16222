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
            try Data(contentsOf: store) == before, "the store's bytes are unchanged", sourceLocation: sourceLocation)
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

    public func createDestinationInstances(
        forSource source: SourceObject, mapping: EntityMapping, manager: MigrationManager
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
