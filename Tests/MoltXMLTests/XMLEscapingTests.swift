import Foundation
import MoltCore
import Testing

@testable import MoltXML

@Suite("Escaping text for XML")
struct XMLEscapingTests {
    static let awkward = "a & b < c > d \"double\" 'single'\tTab\r\nCRLF\rCR\nLF ✓"

    @Test("attribute values and element text read back unchanged", arguments: [Character("\""), Character("'")])
    func roundTrip(quote: Character) throws {
        let text = """
            <e a=\(quote)\(XMLEscaping.escaped(Self.awkward, quote: quote))\(quote)>\(XMLEscaping.escaped(Self.awkward))</e>
            """
        let document = try SafeXMLParser().parse(Data(text.utf8), file: "t.xml")
        #expect(document.root.attributes["a"] == Self.awkward)
        #expect(document.root.text == Self.awkward)
    }

    @Test("characters XML cannot hold are found; the allowed controls are not")
    func unwritable() {
        #expect(XMLEscaping.firstUnwritable(in: "tab\tnew\nreturn\r") == nil)
        #expect(XMLEscaping.firstUnwritable(in: "bell\u{07}") == "\u{07}")
        #expect(XMLEscaping.firstUnwritable(in: "x\u{FFFE}") == "\u{FFFE}")
    }
}
