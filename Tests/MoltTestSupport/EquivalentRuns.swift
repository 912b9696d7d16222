public import Foundation
public import Molt
public import Testing

/// Two ways of migrating one store, compared: each runs on its own copy of the store, and
/// both must succeed with the same result, or both fail alike and leave their copies as they
/// were. What the suites that check a fast path against the object-by-object engine share
/// (the SQL relate, the batched relate, the in-place and SQL paths).
public struct EquivalentRuns {
    /// One way: its name in messages and how it migrates a copy.
    public struct Way {
        public let name: String
        public let run: (URL) throws -> MigrationReport

        public init(_ name: String, _ run: @escaping (URL) throws -> MigrationReport) {
            self.name = name
            self.run = run
        }
    }

    /// The result of a migrated store, to compare (a `molt dump`, every row of every table).
    public let result: (URL) throws -> String
    /// A store before migration, read to check that a failed run left it as it was.
    public let unmigrated: (URL) throws -> String
    /// Whether two failures are alike (by default: the same Core Data code).
    public var sameFailure: (any Error, any Error) -> Bool = { first, second in
        (first as? MoltError)?.code == (second as? MoltError)?.code
    }

    /// `unmigrated` reads a store that has not been migrated (by default as `result` does).
    public init(result: @escaping (URL) throws -> String, unmigrated: ((URL) throws -> String)? = nil) {
        self.result = result
        self.unmigrated = unmigrated ?? result
    }

    /// Both runs' reports and migrated copies, when both succeeded.
    public struct Outcome {
        public let expected: MigrationReport
        public let actual: MigrationReport
        public let expectedStore: URL
        public let actualStore: URL
    }

    /// Runs `expected` and `actual` on copies of `original` in `folder` and records any
    /// difference with `label`. Gives both runs' outcome when both succeeded.
    @discardableResult
    public func compare(
        _ original: URL, in folder: TemporaryDirectory, expected: Way, actual: Way, label: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> Outcome? {
        let expectedCopy = try folder.copy(original, as: "\(expected.name)-\(UUID().uuidString.prefix(8)).sqlite")
        let actualCopy = try folder.copy(original, as: "\(actual.name)-\(UUID().uuidString.prefix(8)).sqlite")
        let expectedResult = Result { try expected.run(expectedCopy) }
        let actualResult = Result { try actual.run(actualCopy) }
        switch (expectedResult, actualResult) {
        case (.success(let expectedReport), .success(let actualReport)):
            let wanted = try result(expectedCopy)
            let got = try result(actualCopy)
            #expect(
                got == wanted, "\(label): \(actual.name) differs from \(expected.name)", sourceLocation: sourceLocation)
            if got != wanted {
                Issue.record(
                    Comment(rawValue: Self.firstDifference(wanted, got, names: (expected.name, actual.name))),
                    sourceLocation: sourceLocation)
            }
            return Outcome(
                expected: expectedReport, actual: actualReport, expectedStore: expectedCopy, actualStore: actualCopy)
        case (.failure(let expectedError), .failure(let actualError)):
            #expect(
                sameFailure(expectedError, actualError), "\(label): \(expectedError) / \(actualError)",
                sourceLocation: sourceLocation)
            // The original was only copied: it is the store as both runs found it.
            #expect(
                try unmigrated(actualCopy) == unmigrated(original),
                "\(label): the failed \(actual.name) run changed the store",
                sourceLocation: sourceLocation)
        case (.success, .failure(let error)):
            Issue.record("\(label): only \(actual.name) failed: \(error)", sourceLocation: sourceLocation)
        case (.failure(let error), .success):
            Issue.record(
                "\(label): only \(actual.name) succeeded (\(expected.name): \(error))", sourceLocation: sourceLocation)
        }
        return nil
    }

    /// The first differing lines of two results, with a few lines around them.
    public static func firstDifference(_ expected: String, _ actual: String, names: (String, String)) -> String {
        let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let b = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(a.count, b.count)
        where (index < a.count ? a[index] : "") != (index < b.count ? b[index] : "") {
            let lines = a[max(0, index - 6)..<min(a.count, index + 3)].joined(separator: "\n")
            let other = b[max(0, index - 6)..<min(b.count, index + 3)].joined(separator: "\n")
            return "first difference at line \(index + 1):\n\(names.0):\n\(lines)\n\(names.1):\n\(other)"
        }
        return "no difference"
    }

    /// A store's objects as `molt dump` writes them, read with `model`.
    public static func dump(_ url: URL, _ model: ObjectModel) throws -> String {
        try ObjectsJSONExporter().exportString(ObjectStore(store: SQLiteStore(at: url), model: model))
    }
}
