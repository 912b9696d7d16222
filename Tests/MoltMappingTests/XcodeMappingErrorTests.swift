import Foundation
import MoltCore
import MoltMapping
import MoltTestSupport
import Testing

/// Xcode mapping models Molt must refuse, each with the exact message, file and line.
@Suite("Refusing bad Xcode mapping models")
struct XcodeMappingErrorTests {
    /// A file with one entity mapping (NoteToNote) whose `title` attribute mapping holds
    /// `valueexpressiondata` (already base64), or whose entity mapping holds `extra`.
    static func document(title expression: String?, extra: String = "") -> String {
        XcodeMappingXML.document(
            entityMappings: ["z10"],
            [
                XcodeMappingXML.entityMapping(
                    "z10", number: 1, source: "Note", destination: "Note", attributes: ["z11"], extra: extra),
                XcodeMappingXML.propertyMapping("z11", name: "title", owner: "z10", expression: expression),
            ].joined(separator: "\n"))
    }

    /// The error for a `title` value built by `body`, and the line of its `valueexpressiondata`.
    static func valueError(_ body: (inout ArchiveBuilder) -> PropertyList) -> (String?, Int) {
        let text = document(title: ArchiveBuilder.base64(body))
        return (XcodeMappingXML.error(text), XcodeMappingXML.line(of: "valueexpressiondata", in: text))
    }

    @Test("an archived class Molt does not understand names the file, line, entity mapping and property")
    func unknownClass() {
        let (error, line) = Self.valueError { archive in
            archive.object("NSSubqueryExpression", ["NSExpressionType": .integer(13)])
        }
        #expect(
            error
                == "xcmapping.xml:\(line): <attribute>: NoteToNote.title: the value expression contains an archived NSSubqueryExpression, which Molt cannot import"
        )
    }

    @Test("a field Molt does not read, a missing function and SELF alone are refused")
    func unknownContent() {
        let (field, line) = Self.valueError { archive in
            let name = archive.add(.string("source"))
            return archive.object(
                "NSVariableExpression", ["NSExpressionType": .integer(2), "NSVariable": name, "NSFlavor": .integer(1)])
        }
        #expect(
            field
                == "xcmapping.xml:\(line): <attribute>: NoteToNote.title: the value expression contains an NSVariableExpression with a field \"NSFlavor\" that Molt does not read"
        )
        let (median, _) = Self.valueError { archive in
            let values = archive.keyPath("source", "scores")
            return archive.function(operand: nil, selector: "median:", arguments: [values])
        }
        #expect(
            median
                == "xcmapping.xml:\(line): <attribute>: NoteToNote.title: the value expression calls the function median:, which Molt has no equivalent for"
        )
        let (selfAlone, _) = Self.valueError { $0.object("NSSelfExpression", ["NSExpressionType": .integer(1)]) }
        #expect(
            selfAlone
                == "xcmapping.xml:\(line): <attribute>: NoteToNote.title: the value expression uses SELF outside a key path; write $source (or $destination) instead"
        )
        let (data, _) = Self.valueError { $0.constant(.data(Data([1, 2]))) }
        #expect(
            data
                == "xcmapping.xml:\(line): <attribute>: NoteToNote.title: the value expression contains a constant that is data, which Molt cannot import"
        )
    }

    @Test("an archive that is not a keyed archive, or not a property list, or not base64")
    func notAnArchive() {
        let plainString = BinaryPropertyListWriter().write(.string("$source.title")).base64EncodedString()
        let text = Self.document(title: plainString)
        let line = XcodeMappingXML.line(of: "valueexpressiondata", in: text)
        #expect(
            XcodeMappingXML.error(text)
                == "xcmapping.xml:\(line): <attribute>: NoteToNote.title: valueexpressiondata is not a readable keyed archive: it is a string, not a keyed archive"
        )
        let garbage = Self.document(title: Data("not a plist at all, not even close".utf8).base64EncodedString())
        #expect(
            XcodeMappingXML.error(garbage)
                == "xcmapping.xml:\(line): <attribute>: NoteToNote.title: valueexpressiondata is not a valid binary property list: it does not start with the binary property list header"
        )
        let notBase64 = Self.document(title: "YnBsaXN0MDD!!!")
        #expect(
            XcodeMappingXML.error(notBase64)
                == "xcmapping.xml:\(line): <attribute>: NoteToNote.title: valueexpressiondata is not valid base64")
    }

    @Test("malformed XML is refused with its line")
    func malformedXML() {
        let text = Self.document(title: nil).replacingOccurrences(of: "</database>", with: "</databse>")
        let line = XcodeMappingXML.line(of: "</databse>", in: text)
        let error = XcodeMappingXML.error(text)
        #expect(error?.hasPrefix("xcmapping.xml:\(line):") == true, "\(error ?? "no error")")
        #expect(error?.contains("malformed XML: opening and ending tag mismatch: database") == true, "\(error ?? "")")
    }

    @Test("a Molt mapping file, or a store with no mapping model, is not an Xcode mapping model")
    func notAMappingModel() {
        #expect(
            XcodeMappingXML.error(MappingText.document(""))
                == "xcmapping.xml:2: <mapping-model>: the root element is <mapping-model>, not <database>: this is a Molt mapping file, not an Xcode mapping model"
        )
        #expect(
            XcodeMappingXML.error("<?xml version=\"1.0\"?>\n<database>\n</database>\n")
                == "xcmapping.xml: the file has no mapping model object (XDDEVMAPPINGMODEL)")
    }

    @Test("a missing entitymappings list, a dangling idref and an idref of the wrong type")
    func brokenReferences() {
        let unlisted = XcodeMappingXML.document(entityMappings: nil, "")
        #expect(
            XcodeMappingXML.error(unlisted)
                == "xcmapping.xml:10: <object>: the mapping model object z1 has no entitymappings list, so nothing says which entity mappings it has"
        )
        let dangling = Self.document(title: nil).replacingOccurrences(of: "idrefs=\"z11\"", with: "idrefs=\"z11 z99\"")
        let line = XcodeMappingXML.line(of: "z11 z99", in: dangling)
        #expect(
            XcodeMappingXML.error(dangling)
                == "xcmapping.xml:\(line): <relationship>: \"attributemappings\" of object z10 names z99, which is not in the file"
        )
        let wrongType = Self.document(title: nil).replacingOccurrences(of: "idrefs=\"z11\"", with: "idrefs=\"z1\"")
        #expect(
            XcodeMappingXML.error(wrongType)
                == "xcmapping.xml:\(line): <relationship>: \"attributemappings\" of object z10 names z1, which is of type XDDEVMAPPINGMODEL, not XDDEVATTRIBUTEMAPPING"
        )
    }

    @Test("duplicate names, unknown types, properties mapped twice and user info that is not text")
    func inconsistentMappings() {
        let twice = XcodeMappingXML.document(
            entityMappings: ["z10", "z20"],
            [
                XcodeMappingXML.entityMapping("z10", number: 1, source: "Note", destination: "Note"),
                XcodeMappingXML.entityMapping("z20", number: 2, source: "Note", destination: "Note"),
            ].joined(separator: "\n"))
        let first = XcodeMappingXML.line(of: "id=\"z10\"", in: twice)
        let second = XcodeMappingXML.line(of: "id=\"z20\"", in: twice)
        #expect(
            XcodeMappingXML.error(twice)
                == "xcmapping.xml:\(second): <object>: NoteToNote: two entity mappings are called \"NoteToNote\" (the other is on line \(first))"
        )
        let merge = Self.document(title: nil).replacingOccurrences(of: ">Undefined<", with: ">Merge<")
        #expect(
            XcodeMappingXML.error(merge)
                == "xcmapping.xml:\(XcodeMappingXML.line(of: ">Merge<", in: merge)): <attribute>: NoteToNote: mappingtypename is \"Merge\"; Molt knows Undefined, Custom, Add, Remove, Copy and Transform"
        )
        let mappedTwice = XcodeMappingXML.document(
            entityMappings: ["z10"],
            [
                XcodeMappingXML.entityMapping(
                    "z10", number: 1, source: "Note", destination: "Note", attributes: ["z11"], relationships: ["z12"]),
                XcodeMappingXML.propertyMapping("z11", name: "title", owner: "z10"),
                XcodeMappingXML.propertyMapping("z12", name: "title", owner: "z10", relationship: true),
            ].joined(separator: "\n"))
        #expect(
            XcodeMappingXML.error(mappedTwice)
                == "xcmapping.xml:\(XcodeMappingXML.line(of: "id=\"z12\"", in: mappedTwice)): <object>: NoteToNote.title: \"title\" is mapped twice"
        )
        let userInfo = ArchiveBuilder.base64 { $0.dictionary([("limit", .integer(3))]) }
        let numbers = Self.document(title: nil, extra: XcodeMappingXML.binary("userinfodata", userInfo))
        #expect(
            XcodeMappingXML.error(numbers)
                == "xcmapping.xml:\(XcodeMappingXML.line(of: "userinfodata", in: numbers)): <attribute>: NoteToNote: the user info has \"limit\" of kind integer, but Molt's user info is text"
        )
        let custom = Self.document(title: nil).replacingOccurrences(of: ">Undefined<", with: ">Custom<")
        #expect(
            XcodeMappingXML.error(custom)
                == "xcmapping.xml:\(XcodeMappingXML.line(of: "id=\"z10\"", in: custom)): <object>: NoteToNote: a custom mapping needs a policy (policy=\"…\")"
        )
    }

    @Test("a source fetch Molt cannot run as a filter is refused, saying why")
    func sourceFetches() {
        func error(_ body: (inout ArchiveBuilder) -> PropertyList) -> (String?, Int) {
            let text = Self.document(
                title: nil, extra: XcodeMappingXML.binary("sourceexpressiondata", ArchiveBuilder.base64(body)))
            return (XcodeMappingXML.error(text), XcodeMappingXML.line(of: "sourceexpressiondata", in: text))
        }
        let (otherEntity, line) = error { $0.fetch("Tag", "TRUEPREDICATE") }
        #expect(
            otherEntity
                == "xcmapping.xml:\(line): <attribute>: NoteToNote: the source fetch fetches Tag objects, but the entity mapping's source entity is Note"
        )
        let (unreadable, _) = error { $0.fetch("Note", "title == ") }
        #expect(
            unreadable?.hasPrefix(
                "xcmapping.xml:\(line): <attribute>: NoteToNote: the source fetch has the predicate \"title == \", which Molt cannot read: "
            ) == true, "\(unreadable ?? "")")
        let (notAFetch, _) = error { $0.keyPath("source", "title") }
        #expect(
            notAFetch
                == "xcmapping.xml:\(line): <attribute>: NoteToNote: the source fetch is an NSKeyPathExpression ($source.title), not the fetch Xcode writes: Core Data would map each object of the collection it gives, which Molt cannot work out before the run"
        )
        let (notACondition, _) = error { $0.fetch("Note", "1 + 2") }
        #expect(
            notACondition
                == "xcmapping.xml:\(line): <attribute>: NoteToNote: the source fetch has the predicate \"1 + 2\", which is not a condition"
        )
    }

    @Test("hostile archives: deep nesting, shared references that multiply, and cycles, are refused quickly")
    func hostileArchives() {
        let (deep, line) = Self.valueError { archive in
            var expression = archive.keyPath("source", "title")
            for _ in 0..<200 {
                expression = archive.function(operand: nil, selector: "uppercase:", arguments: [expression])
            }
            return expression
        }
        #expect(
            deep
                == "xcmapping.xml:\(line): <attribute>: NoteToNote.title: the value expression is nested more than 64 levels deep"
        )
        let (wide, _) = Self.valueError { archive in
            var expression = archive.constant(.integer(1))
            for _ in 0..<40 {
                expression = archive.function(operand: nil, selector: "add:to:", arguments: [expression, expression])
            }
            return expression
        }
        #expect(
            wide
                == "xcmapping.xml:\(line): <attribute>: NoteToNote.title: the value expression is made of more than 10000 archived objects"
        )
        let (cycle, _) = Self.valueError { archive in
            let placeholder = archive.add(.string("placeholder"))
            let loop = archive.function(operand: placeholder, selector: "foo:", arguments: [])
            guard case .uid(let index) = loop else { return loop }
            archive.replace(placeholder, with: archive.objects[Int(index)])
            return loop
        }
        #expect(
            cycle
                == "xcmapping.xml:\(line): <attribute>: NoteToNote.title: the value expression is nested more than 64 levels deep"
        )
    }

    @Test("predicates inside a TERNARY and constants of every kind read as Molt's")
    func predicatesAndConstants() throws {
        let text = Self.document(
            title: ArchiveBuilder.base64 { archive in
                let left = archive.keyPath("source", "views")
                let right = archive.constant(.integer(100))
                let op = archive.object(
                    "NSPredicateOperator", superclasses: [],
                    ["NSOperatorType": .integer(2), "NSModifier": .integer(0)])
                let comparison = archive.object(
                    "NSComparisonPredicate", superclasses: ["NSPredicate"],
                    ["NSLeftExpression": left, "NSRightExpression": right, "NSPredicateOperator": op])
                let name = archive.keyPath("source", "tags.name")
                let swift = archive.constant(.string("swift"))
                let like = archive.object(
                    "NSLikePredicateOperator", superclasses: ["NSPredicateOperator"],
                    ["NSOperatorType": .integer(7), "NSModifier": .integer(2), "NSOptions": .integer(3)])
                let any = archive.object(
                    "NSComparisonPredicate", superclasses: ["NSPredicate"],
                    ["NSLeftExpression": name, "NSRightExpression": swift, "NSPredicateOperator": like])
                let truth = archive.object("NSTruePredicate", superclasses: ["NSPredicate"], [:])
                let negated = archive.object(
                    "NSCompoundPredicate", superclasses: ["NSPredicate"],
                    ["NSCompoundPredicateType": .integer(0), "NSSubpredicates": archive.array([any])])
                let both = archive.object(
                    "NSCompoundPredicate", superclasses: ["NSPredicate"],
                    [
                        "NSCompoundPredicateType": .integer(2),
                        "NSSubpredicates": archive.array([comparison, negated, truth]),
                    ])
                let then = archive.constant(.string("popular"))
                let otherwise = archive.date(0.5)
                return archive.object(
                    "NSTernaryExpression",
                    [
                        "NSExpressionType": .integer(20), "NSPredicate": both, "NSTrueExpression": then,
                        "NSFalseExpression": otherwise,
                    ])
            })
        let model = try XcodeMappingXML.read(text)
        #expect(
            model.entityMappings.first?.attributeMappings.first?.value
                == .expression(
                    try ExpressionParser().parse(
                        "TERNARY($source.views > 100 OR NOT ANY $source.tags.name LIKE[cd] \"swift\" OR TRUEPREDICATE, \"popular\", date(0.5))"
                    )))
    }

    @Test("byte mutations of archives and of whole documents give MoltErrors, never a crash")
    func mutations() {
        var random = SplitMix(seed: 2026)
        func attempt(_ text: String) {
            do {
                _ = try XcodeMappingXML.read(text)
            } catch is MoltError {
            } catch {
                Issue.record("not a MoltError: \(error)")
            }
        }
        let fetch: (inout ArchiveBuilder) -> PropertyList = { $0.fetch("Note", "title BEGINSWITH 'a'") }
        var builder = ArchiveBuilder()
        let root = fetch(&builder)
        let archives = [
            builder.data(root: root),
            Data(
                base64Encoded: ArchiveBuilder.base64 { $0.keyPath("source", "title") },
                options: .ignoreUnknownCharacters)
                ?? Data(),
        ]
        for archive in archives {
            for _ in 0..<600 {
                var bytes = [UInt8](archive)
                for _ in 0...random.next(below: 3) {
                    bytes[random.next(below: bytes.count)] = UInt8(truncatingIfNeeded: random.next())
                }
                let encoded = Data(bytes).base64EncodedString()
                attempt(Self.document(title: encoded))
                attempt(Self.document(title: nil, extra: XcodeMappingXML.binary("sourceexpressiondata", encoded)))
            }
        }
        let document = Array(XcodeMappingReaderTests.fullDocument.utf8)
        for _ in 0..<300 {
            var bytes = document
            for _ in 0...random.next(below: 4) {
                let at = random.next(below: bytes.count)
                switch random.next(below: 3) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(bytes[random.next(below: bytes.count)], at: at)
                default: bytes[at] = UInt8(truncatingIfNeeded: random.next())
                }
            }
            attempt(String(decoding: bytes, as: UTF8.self))
        }
    }
}
