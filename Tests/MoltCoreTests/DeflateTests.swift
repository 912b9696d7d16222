import Foundation
import MoltCore
import Testing

@Suite("Deflate (raw DEFLATE)")
struct DeflateTests {
    @Test("Deflate writes raw DEFLATE that Inflate reads back, smaller for repetitive data")
    func roundTrip() throws {
        for data in [Data(), Data("a".utf8), Data(String(repeating: "model cache ", count: 10_000).utf8)] {
            let compressed = try Deflate().compress(data)
            #expect(try Inflate().decompress(compressed, name: "round trip") == data)
            if data.count > 1000 { #expect(compressed.count < data.count / 10) }
        }
    }
}
