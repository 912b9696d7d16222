import Crypto
import Foundation
import MoltModel
import MoltTestSupport
import Testing

/// `NSStoreModelVersionChecksumKey` (Core Data's `versionChecksum`): base64 of SHA-256 over
/// the 32-byte entity hashes in ascending byte order of entity name, nothing else.
@Suite("Model checksum")
struct ModelChecksumTests {
    static let model = """
        <entity name="Book">
            <attribute name="title" attributeType="String"/>
        </entity>
        <entity name="author">
            <attribute name="name" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Zebra">
            <attribute name="stripes" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
        </entity>
        """

    @Test("SHA-256 over the entity hashes in byte order of names (Book, Zebra, author), base64")
    func computedByHand() throws {
        let model = try XcodeModelReader().read(Data(ModelXML.document(Self.model).utf8), file: "contents")
        let hashes = try model.entityVersionHashes()
        // Byte order puts upper case first: "Zebra" before "author".
        var bytes = Data()
        for name in ["Book", "Zebra", "author"] { bytes += try #require(hashes[name]) }
        let expected = Data(SHA256.hash(data: bytes)).base64EncodedString()
        #expect(try model.versionChecksum() == expected)
        #expect(expected.count == 44)
        // Not the file order, nor a case-insensitive one.
        var fileOrder = Data()
        for name in ["Book", "author", "Zebra"] { fileOrder += try #require(hashes[name]) }
        #expect(try model.versionChecksum() != Data(SHA256.hash(data: fileOrder)).base64EncodedString())
    }

    @Test("a known value: three fixed hashes (computed apart, with Python's hashlib)")
    func knownValue() {
        let hashes = [
            "b": Data(repeating: 1, count: 32), "a": Data(repeating: 2, count: 32), "B": Data(repeating: 3, count: 32),
        ]
        // SHA-256(03×32 ‖ 02×32 ‖ 01×32): B, a, b.
        #expect(VersionHasher.checksum(of: hashes) == "z8aIS1tCyVMTw1t4VR+yx+QIh89lAyvJbJjU0CR2LRs=")
        // The names themselves are not hashed: renaming keeps the order, and the value.
        let renamed = [
            "c": Data(repeating: 1, count: 32), "C": Data(repeating: 2, count: 32), "A": Data(repeating: 3, count: 32),
        ]
        #expect(VersionHasher.checksum(of: renamed) == "z8aIS1tCyVMTw1t4VR+yx+QIh89lAyvJbJjU0CR2LRs=")
    }

    @Test("any entity's hash changes it")
    func sensitive() throws {
        let model = try XcodeModelReader().read(Data(ModelXML.document(Self.model).utf8), file: "contents")
        var hashes = try model.entityVersionHashes()
        hashes["Zebra"] = Data(repeating: 0, count: 32)
        #expect(VersionHasher.checksum(of: hashes) != (try model.versionChecksum()))
    }
}
