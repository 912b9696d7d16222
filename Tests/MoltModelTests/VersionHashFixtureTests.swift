import Foundation
import MoltCore
import MoltModel
import MoltTestSupport
import Testing

@Suite(
    "Version hashes on Apple's real files", .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
struct VersionHashFixtureTests {
    /// The hashes Core Data wrote into TestModel.sqlite's Z_METADATA, read once with a plist
    /// reader and kept here; the store test reads them from the store itself as well.
    static let storedHashes = [
        "Author": "cbc1f5c274ebf414474c4e350f73b14b1dd356c22782ae7488810d597188c46d",
        "Book": "292c923e48c2cbeea5a113bb7685fbc63ab800c0bbc242ad17a0f2e2a1e08f5c",
    ]

    @Test("TestModel.xcdatamodel hashes equal the ones Core Data stored in TestModel.sqlite")
    func testModelHashesMatchStore() throws {
        let model = try ModelLoader().load(
            at: Fixtures.real("coredatastack/Sample.xcdatamodeld/TestModel.xcdatamodel"))
        let hashes = try model.entityVersionHashes().mapValues(\.hexString)
        #expect(hashes == Self.storedHashes)
    }
}
