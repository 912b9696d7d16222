import Foundation
import MoltCore
import MoltMapping
@_spi(RouteSwitches) import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Peak resident memory of this process (VmHWM in /proc/self/status), in bytes; 0 elsewhere.
func peakResidentMemory() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes * 1024
}

@Suite("Migrating many objects")
struct MigrationMemoryTests {
    /// The documented bound: a migration's peak resident memory stays under 100 MB whatever the
    /// number of objects. Measured (debug build, 2026-11-26): 78 MB at 200,000 objects, of which
    /// the test process itself (Foundation, the test library, the store it made) takes 43 MB
    /// before the migration starts; 72 MB with SQLite's default page cache instead of the new
    /// store's 8 MB.
    static let peakBound = 100 * 1024 * 1024
    static let objectCount = Int(ProcessInfo.processInfo.environment["MOLT_MEMORY_TEST_OBJECTS"] ?? "") ?? 200_000

    @Test(
        "200,000 objects migrate with peak memory under the documented bound",
        .enabled(if: peakResidentMemory() > 0, "needs /proc/self/status (Linux)"))
    func manyObjects() async {
        // In a process of its own, so other tests running in parallel do not count.
        await #expect(processExitsWith: .success) {
            let folder = TemporaryDirectory()
            let url = folder.path("big.sqlite")
            let count = MigrationMemoryTests.objectCount
            _ = try ObjectStore.create(at: url, model: try Examples.model("Blog")) { writer in
                var posts: [ObjectID] = []
                for index in 0..<(count / 100) {
                    posts.append(try writer.insert("Article", attributes: ["title": .string("Post \(index)")]))
                }
                for index in 0..<(count - count / 100) {
                    let comment = try writer.insert(
                        "Comment",
                        attributes: ["text": .string("comment \(index) with some text"), "createdAt": .date(Date())])
                    try writer.setToOne(comment, "post", to: posts[index % posts.count])
                }
            }
            let before = peakResidentMemory()
            // Object by object: the path whose memory must stay bounded (the SQL path loads no objects).
            var options = MigrationOptions()
            options.allowsSQLOnCopy = false
            options.allowsRelateInSQL = false
            let report = try HeavyweightMigration(
                store: url, source: try Examples.model("Blog"), destination: try Examples.model("Blog 2"),
                mapping: try MigrationFixtures.mapping("Blog/Blog-to-Blog2.xml"), options: options
            ).run()
            let peak = peakResidentMemory()
            let migrated = (report.destinationCounts["Comment"] ?? 0) + (report.destinationCounts["Article"] ?? 0)
            let line =
                "migrated \(migrated) objects in \(report.duration) s; peak memory \(peak / 1_048_576) MB (\(before / 1_048_576) MB before)\n"
            // An exit test's output is not shown; MOLT_MEMORY_REPORT names a file for the figures.
            if let path = ProcessInfo.processInfo.environment["MOLT_MEMORY_REPORT"] {
                try Data(line.utf8).write(to: URL(fileURLWithPath: path))
            }
            if migrated != count || peak > MigrationMemoryTests.peakBound { exit(1) }
        }
    }
}
