import Foundation
import MoltTestSupport
import Testing

/// What `molt` says about policies: a misspelled policy name gets the "did you mean" that a
/// misspelled function name gets, and data that no mapping reads but a policy may is reported
/// as left to the policy, not as lost (Molt cannot see what a policy's code writes).
@Suite(
    "molt on policies: names and what is left to them",
    .enabled(if: Tool.available, "the molt executable was not built"))
struct PolicyWordingTests {
    let folder = TemporaryDirectory()
    static let bundle = PassesCommandTests.bundle
    static let first = PassesCommandTests.first
    static let second = PassesCommandTests.second

    /// The Forum store the passes' tests start from.
    func forumStore() throws -> String {
        try PassesCommandTests.forumStore(in: folder)
    }

    @Test("a misspelled policy name: the compiled-in ones listed, and the nearest suggested")
    func misspelledPolicy() throws {
        let text = try String(contentsOf: Self.first, encoding: .utf8)
        let misspelled = try folder.write(
            text.replacingOccurrences(of: "\"TopicByNamePolicy\"", with: "\"TopicByNamePolcy\""), to: "misspelled.xml")
        let check = try Tool.run(["check-mapping", misspelled.path, "--from", Self.bundle, "--to", Self.bundle])
        #expect(check.status == 1, "\(check.stderr)")
        #expect(
            check.stdout.contains("no compiled-in policy is called \"TopicByNamePolcy\" (compiled in: "),
            "\(check.stdout)")
        #expect(check.stdout.contains("; did you mean \"TopicByNamePolicy\"?"), "\(check.stdout)")
        let store = try forumStore()
        let migrate = try Tool.run([
            "migrate", store, "--from", Self.bundle, "--to", Self.bundle, "--mapping", misspelled.path, "--mapping",
            Self.second.path,
        ])
        #expect(migrate.status == 65, "\(migrate.stderr)")
        #expect(migrate.stderr.contains("did you mean \"TopicByNamePolicy\"?"), "\(migrate.stderr)")
    }

    @Test("values only a policy may read are listed as left to it, not as discarded")
    func leftToPolicies() throws {
        let store = try forumStore()
        let run = try Tool.run([
            "migrate", store, "--from", Self.bundle, "--to", Self.bundle, "--mapping", Self.first.path, "--mapping",
            Self.second.path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout.contains(
                "Left to the policies (no mapping reads them; they are kept only where the policy's code writes them):\n"
            ),
            "\(run.stdout)")
        #expect(run.stdout.contains("(policy TopicByNamePolicy)"), "\(run.stdout)")
        #expect(!run.stdout.contains("unless the policy carries them"), "\(run.stdout)")
        #expect(!run.stderr.contains("warning"), "\(run.stderr)")
    }
}
