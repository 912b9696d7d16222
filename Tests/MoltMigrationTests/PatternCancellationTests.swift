import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// A run whose values run long `MATCHES` (each within the step budget) stops soon after it is
/// cancelled: the match under way is ended by the run's stop check, and the error is the
/// run's (134120), not the match's.
@Suite("Cancelling a run that is matching patterns")
struct PatternCancellationTests {
    let folder = TemporaryDirectory("molt-pattern")

    static let versions = [
        #"<entity name="Note" representedClassName="Note"><attribute name="text" attributeType="String"/></entity>"#,
        #"<entity name="Note" representedClassName="Note" versionHashModifier="2"><attribute name="text" attributeType="String"/><attribute name="length" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/></entity>"#,
    ]

    @Test("cancelled while values run long MATCHES: 134120 within a second, the store untouched")
    func cancelDuringPatterns() throws {
        let source = try InferenceCase.model(Self.versions[0], name: "Notes")
        let destination = try InferenceCase.model(Self.versions[1], name: "Notes 2")
        let url = folder.path("Notes.sqlite")
        _ = try ObjectStore.create(at: url, model: source) { writer in
            for index in 0..<400 { try writer.insert("Note", attributes: ["text": .string("note \(index)")]) }
        }
        // 22 "a" before the text: hundreds of thousands of ICU steps per note, within the budget.
        let mapping = try MigrationFixtures.mapping(
            text: """
                <mapping-model format="1" source-model="Notes" destination-model="Notes 2">
                    <entity-mapping name="NoteToNote" type="transform" source="Note" destination="Note">
                        <attribute name="length" value="TERNARY(concat('\(String(repeating: "a", count: 22))', $source.text) MATCHES '(a+)+b', 0, length($source.text))"/>
                    </entity-mapping>
                </mapping-model>
                """)
        let context = RunContext()
        let cancelledAt = LockedDate()
        // A thread of its own: under a loaded test run, work queued on the shared pools can be
        // starved until the run has ended.
        Thread {
            Thread.sleep(forTimeInterval: 0.5)
            cancelledAt.set(Date())
            context.cancel()
        }.start()
        let error = try FailedRun.expectUntouched(url, folder: folder) {
            try HeavyweightMigration(
                store: url, source: source, destination: destination, mapping: mapping, context: context
            ).run()
        }
        #expect(error?.code == .migrationCancelled, "\(String(describing: error))")
        let waited = try #require(cancelledAt.value, "the run ended before it was cancelled").distance(to: Date())
        // The stop check runs every 10,000 of ICU's steps (well under a millisecond); the bound
        // leaves room for a loaded machine.
        #expect(waited < 2, "the run went on for \(waited) s after it was cancelled")
    }
}

/// A date set from another thread.
final class LockedDate: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Date?

    func set(_ date: Date) {
        lock.lock()
        stored = date
        lock.unlock()
    }

    var value: Date? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
