import Foundation
import MoltCore
import MoltTestSupport
import Testing

@testable import MoltXML

@Suite("Safe XML parsing")
struct SafeXMLParserTests {
    func parse(_ text: String) throws -> ParsedDocument {
        try SafeXMLParser().parse(Data(text.utf8), file: "test.xml")
    }

    @Test("elements, attributes, text and line numbers are copied out")
    func tree() throws {
        let document = try parse(
            """
            <?xml version="1.0"?>
            <model a="1" b="x &amp; y">
              <entity name="E">text<![CDATA[ <raw> ]]></entity>
              <!-- a comment -->
              <entity name="F"/>
            </model>
            """)
        #expect(document.root.name == "model")
        #expect(document.root.attributes == ["a": "1", "b": "x & y"])
        #expect(document.root.line == 2)
        #expect(document.root.children.map(\.line) == [3, 5])
        #expect(document.root.children[0].text == "text <raw> ")
        #expect(document.root.children(named: "entity").count == 2)
        #expect(document.location(of: document.root.children[1]).description == "test.xml:5: <entity>")
    }

    @Test("malformed XML gives the file, line and column")
    func malformed() throws {
        let error = #expect(throws: MoltError.self) {
            try parse("<model>\n  <entity>\n</model>")
        }
        #expect(error?.code == .fileReadCorruptFile)
        #expect(error?.location?.file == "test.xml")
        #expect(error?.location?.line == 3)
        #expect(error?.message.contains("malformed XML") == true)
    }

    @Test("an external entity pointing at a local file is refused and the file is never read")
    func externalEntity() throws {
        let folder = TemporaryDirectory()
        let secret = try folder.write("TOP-SECRET", to: "secret.txt")
        let error = #expect(throws: MoltError.self) {
            try parse(
                """
                <?xml version="1.0"?>
                <!DOCTYPE model [<!ENTITY xxe SYSTEM "file://\(secret.path)">]>
                <model>&xxe;</model>
                """)
        }
        #expect(error?.message.contains("entity \"xxe\"") == true)
        #expect(error?.location?.line == 2)
        #expect(error?.description.contains("TOP-SECRET") == false)
    }

    @Test("a parameter entity is refused")
    func parameterEntity() {
        #expect(throws: MoltError.self) {
            try parse(
                """
                <?xml version="1.0"?>
                <!DOCTYPE model [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]>
                <model/>
                """)
        }
    }

    @Test("billion laughs is refused at the first declaration, quickly")
    func billionLaughs() {
        var declarations = "<!ENTITY lol0 \"lol\">"
        for level in 1...9 {
            let previous = String(repeating: "&lol\(level - 1);", count: 10)
            declarations += "<!ENTITY lol\(level) \"\(previous)\">"
        }
        let spent = ThreadCPUTime.measure {
            #expect(throws: MoltError.self) {
                try parse("<?xml version=\"1.0\"?><!DOCTYPE lolz [\(declarations)]><lolz>&lol9;</lolz>")
            }
        }
        #expect(spent < .seconds(2), "took \(spent) of processor time")
    }

    @Test("50 MB of nesting is refused without exhausting memory or the stack")
    func deepNesting() {
        let depth = 50 * 1024 * 1024 / 3
        var bytes = [UInt8]()
        bytes.reserveCapacity(depth * 3)
        for _ in 0..<depth { bytes += [UInt8(ascii: "<"), UInt8(ascii: "a"), UInt8(ascii: ">")] }
        let error = #expect(throws: MoltError.self) {
            try SafeXMLParser().parse(Data(bytes), file: "deep.xml")
        }
        #expect(error?.message.lowercased().contains("depth") == true)
    }

    @Test("Apple's plist DOCTYPE is accepted and never fetched")
    func plistDoctype() throws {
        let document = try parse(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>a</key><string>b</string></dict></plist>
            """)
        #expect(document.root.name == "plist")
    }

    @Test("a DOCTYPE naming a local DTD file does not load it")
    func localDTDNotLoaded() throws {
        let folder = TemporaryDirectory()
        let dtd = try folder.write("<!ENTITY injected \"oops\">", to: "evil.dtd")
        // If the DTD were loaded, &injected; would be defined; it is not, so the reference fails.
        let error = #expect(throws: MoltError.self) {
            try parse("<?xml version=\"1.0\"?><!DOCTYPE model SYSTEM \"file://\(dtd.path)\"><model>&injected;</model>")
        }
        #expect(error?.message.contains("oops") == false)
    }

    @Test("a file larger than the limit is refused before parsing")
    func sizeLimit() throws {
        var parser = SafeXMLParser()
        parser.maximumFileSize = 100
        #expect(throws: MoltError.self) {
            try parser.parse(Data(String(repeating: " ", count: 200).utf8), file: "big.xml")
        }
    }

    @Test("a missing file gives Core Data's no-such-file code")
    func missingFile() {
        let error = #expect(throws: MoltError.self) {
            try SafeXMLParser().parse(contentsOf: URL(fileURLWithPath: "/nonexistent/contents"))
        }
        #expect(error?.code == .fileReadNoSuchFile)
    }

    @Test("XML property lists read every value kind")
    func xmlPropertyList() throws {
        let document = try parse(
            """
            <plist version="1.0"><dict>
              <key>s</key><string>text</string>
              <key>i</key><integer>-3</integer>
              <key>r</key><real>2.5</real>
              <key>t</key><true/>
              <key>f</key><false/>
              <key>d</key><data>AAEC</data>
              <key>when</key><date>2001-01-01T00:00:10Z</date>
              <key>a</key><array><string>x</string></array>
            </dict></plist>
            """)
        let value = try XMLPropertyListReader().read(document)
        #expect(
            value
                == .dictionary([
                    "s": .string("text"), "i": .integer(-3), "r": .real(2.5), "t": .bool(true), "f": .bool(false),
                    "d": .data(Data([0, 1, 2])), "when": .date(Date(timeIntervalSinceReferenceDate: 10)),
                    "a": .array([.string("x")]),
                ]))
    }

    @Test("a malformed XML property list names the element")
    func badPropertyList() throws {
        let document = try parse("<plist><dict><key>a</key><integer>x</integer></dict></plist>")
        let error = #expect(throws: MoltError.self) { try XMLPropertyListReader().read(document) }
        #expect(error?.location?.element == "integer")
    }
}
