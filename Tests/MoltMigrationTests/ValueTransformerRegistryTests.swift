import Foundation
import MoltCore
import MoltMigration
import MoltModel
import MoltPolicies
import MoltTestSupport
import Testing

/// Stores an integer as its decimal text: a transformer registered by an app, under a name of
/// its own choosing.
final class DecimalTextTransformer: AttributeValueTransformer {
    static var transformerName: String { "DecimalTextTransformerName" }
    init() {}

    func transformedValue(_ value: TransformableValue) throws -> Data {
        guard let number = value.integerValue else { throw MoltError(.coderInvalidValue, "not an integer") }
        return Data(String(number).utf8)
    }

    func reverseTransformedValue(_ data: Data) throws -> TransformableValue {
        guard let number = Int64(String(decoding: data, as: UTF8.self)) else {
            throw MoltError(.coderReadCorrupt, "not decimal text")
        }
        return .integer(number)
    }
}

@Suite("Value transformers: found by name like policies")
struct ValueTransformerRegistryTests {
    init() {
        MoltPolicies.CompiledPolicies.register()
        ValueTransformerRegistry.register([DecimalTextTransformer.self])
    }

    func attribute(_ transformer: String?, customClass: String? = nil) -> Attribute {
        Attribute(
            name: "tags", type: .transformable, isOptional: true, valueTransformerName: transformer,
            customClassName: customClass)
    }

    @Test(
        "no name, and every spelling of Foundation's keyed-archive transformers, give the built-in one",
        arguments: [
            nil, "", "NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer",
            "NSSecureUnarchiveFromDataTransformerName", "NSKeyedUnarchiveFromData",
            "NSKeyedUnarchiveFromDataTransformerName", "Foundation.NSSecureUnarchiveFromData",
        ])
    func builtIn(name: String?) throws {
        let transformer = try ValueTransformerRegistry.transformer(for: attribute(name), entity: "Note")
        #expect(transformer is KeyedArchiveValueTransformer)
    }

    @Test("the build plugin registers the transformers in Policies/, found with or without a module prefix")
    func compiledIn() throws {
        #expect(MoltPolicies.CompiledPolicies.transformerNames == ["CommaSeparatedTransformer"])
        #expect(MoltPolicies.CompiledPolicies.names.contains("ContactSplitPolicy"), "policies are still listed")
        for name in ["CommaSeparatedTransformer", "App.CommaSeparatedTransformer"] {
            let transformer = try ValueTransformerRegistry.transformer(for: attribute(name), entity: "Note")
            #expect(type(of: transformer).transformerName == "CommaSeparatedTransformer")
            #expect(try transformer.reverseTransformedValue(Data("x,y".utf8)) == ["x", "y"])
            #expect(try transformer.transformedValue(["p", "q"]) == Data("p,q".utf8))
        }
    }

    @Test("a transformer registered by an app is found under its own name")
    func registered() throws {
        #expect(ValueTransformerRegistry.names.contains("DecimalTextTransformerName"))
        let transformer = try ValueTransformerRegistry.transformer(
            for: attribute("DecimalTextTransformerName"), entity: "Note")
        #expect(try transformer.reverseTransformedValue(Data("42".utf8)) == 42)
    }

    @Test("an unknown name is an error naming it and the attribute, listing the known transformers")
    func unknown() {
        do {
            _ = try ValueTransformerRegistry.transformer(for: attribute("ColorTransformer"), entity: "Note")
            Issue.record("no error")
        } catch let error as MoltError {
            #expect(error.entity == "Note")
            #expect(error.property == "tags")
            #expect(
                error.description.hasPrefix("Note.tags: the attribute names the value transformer \"ColorTransformer\"")
            )
            #expect(error.message.contains("NSSecureUnarchiveFromData, NSSecureUnarchiveFromDataTransformer"))
            #expect(error.message.contains("CommaSeparatedTransformer"))
            #expect(error.message.contains("DecimalTextTransformerName"))
            #expect(error.recovery?.contains("AttributeValueTransformer called ColorTransformer") == true)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("NSUnarchiveFromData (NSArchiver's non-keyed format) is refused with its own reason")
    func nonKeyedArchives() {
        #expect {
            try ValueTransformerRegistry.transformer(for: attribute("NSUnarchiveFromData"), entity: "Note")
        } throws: { error in
            (error as? MoltError)?.message.contains("NSArchiver's old non-keyed archives") == true
        }
    }

    @Test("an attribute whose custom class is mutable gets mutable classes from the built-in transformer")
    func mutableCustomClass() throws {
        let mutable = try ValueTransformerRegistry.transformer(
            for: attribute(nil, customClass: "NSMutableArray"), entity: "Note")
        #expect((mutable as? KeyedArchiveValueTransformer)?.usesMutableClasses == true)
        let bytes = try mutable.transformedValue(["a"])
        let object = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, NSString.self], from: bytes)
        #expect(object is NSMutableArray)
        let swift = try ValueTransformerRegistry.transformer(
            for: attribute(nil, customClass: "[String]"), entity: "Note")
        #expect((swift as? KeyedArchiveValueTransformer)?.usesMutableClasses == false)
    }

    @Test("the built-in transformer reads Foundation's XML keyed archives too")
    func xmlArchives() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = .xml
        archiver.encode(
            NSDictionary(dictionary: ["tags": NSArray(array: [NSString(string: "a")]), "count": NSNumber(value: 1)]),
            forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        let xml = archiver.encodedData
        #expect(String(decoding: xml.prefix(5), as: UTF8.self) == "<?xml")
        #expect(try KeyedArchiveValueTransformer().reverseTransformedValue(xml) == ["tags": ["a"], "count": 1])
        #expect(throws: MoltError.self) {
            try KeyedArchiveValueTransformer().reverseTransformedValue(Data("<plist><dict>".utf8))
        }
    }

    @Test(
        "every Transformable attribute of the real WooCommerce models has a transformer",
        .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
    func realModels() throws {
        let bundle = try ModelBundle(url: Fixtures.real("woocommerce/WooCommerce.xcdatamodeld"))
        var checked = 0
        for version in ["Model 23", "Model 77", "Model 115"] {
            let model = try bundle.model(named: version)
            for entity in model.entities {
                for attribute in entity.attributes where attribute.type == .transformable {
                    let transformer = try ValueTransformerRegistry.transformer(for: attribute, entity: entity.name)
                    #expect(transformer is KeyedArchiveValueTransformer, "\(entity.name).\(attribute.name)")
                    checked += 1
                }
            }
        }
        #expect(checked > 20)
    }
}
