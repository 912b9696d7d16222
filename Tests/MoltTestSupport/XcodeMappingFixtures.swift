public import Foundation
public import Molt

/// Builds `NSKeyedArchiver` archives the way Xcode stores expressions and user info in an
/// `xcmapping.xml`: objects in `$objects`, referring to each other by uid, classes described
/// once each.
public struct ArchiveBuilder {
    public private(set) var objects: [PropertyList] = [.string("$null")]
    private var classes: [String: PropertyList] = [:]

    public init() {}

    /// Replaces the object `reference` refers to (to build cycles).
    public mutating func replace(_ reference: PropertyList, with value: PropertyList) {
        guard case .uid(let index) = reference else { return }
        objects[Int(index)] = value
    }

    /// Appends `value` to `$objects` and returns its reference.
    public mutating func add(_ value: PropertyList) -> PropertyList {
        objects.append(value)
        return .uid(UInt64(objects.count - 1))
    }

    /// The reference of a class description (added once).
    public mutating func classReference(_ name: String, superclasses: [String]) -> PropertyList {
        if let known = classes[name] { return known }
        let reference = add(
            .dictionary([
                "$classname": .string(name),
                "$classes": .array(([name] + superclasses + ["NSObject"]).map { .string($0) }),
            ]))
        classes[name] = reference
        return reference
    }

    /// An object of class `name` with `fields` (references or inline values).
    public mutating func object(
        _ name: String, superclasses: [String] = ["NSExpression"], _ fields: [String: PropertyList]
    ) -> PropertyList {
        var all = fields
        all["$class"] = classReference(name, superclasses: superclasses)
        return add(.dictionary(all))
    }

    public mutating func array(_ items: [PropertyList]) -> PropertyList {
        object("NSMutableArray", superclasses: ["NSArray"], ["NS.objects": .array(items)])
    }

    public mutating func dictionary(_ entries: [(String, PropertyList)]) -> PropertyList {
        let keys = entries.map { add(.string($0.0)) }
        return object(
            "NSDictionary", superclasses: [], ["NS.keys": .array(keys), "NS.objects": .array(entries.map(\.1))])
    }

    public mutating func constant(_ value: PropertyList?) -> PropertyList {
        var fields: [String: PropertyList] = ["NSExpressionType": .integer(0)]
        if let value {
            switch value {
            case .string, .data: fields["NSConstantValue"] = add(value)
            default: fields["NSConstantValue"] = value
            }
        }
        return object("NSConstantValueExpression", fields)
    }

    public mutating func date(_ seconds: Double) -> PropertyList {
        let date = object("NSDate", superclasses: [], ["NS.time": .real(seconds)])
        return object("NSConstantValueExpression", ["NSExpressionType": .integer(0), "NSConstantValue": date])
    }

    public mutating func variable(_ name: String) -> PropertyList {
        object("NSVariableExpression", ["NSExpressionType": .integer(2), "NSVariable": add(.string(name))])
    }

    public mutating func keyPathSpecifier(_ path: String) -> PropertyList {
        object("NSKeyPathSpecifierExpression", ["NSExpressionType": .integer(10), "NSKeyPath": add(.string(path))])
    }

    /// `$variable.path`, as Xcode archives it: `valueForKeyPath:` on a variable.
    public mutating func keyPath(_ variable: String, _ path: String) -> PropertyList {
        let operand = self.variable(variable)
        let specifier = keyPathSpecifier(path)
        return function(
            operand: operand, selector: "valueForKeyPath:", arguments: [specifier], className: "NSKeyPathExpression")
    }

    public mutating func function(
        operand: PropertyList?, selector: String, arguments: [PropertyList],
        className: String = "NSFunctionExpression"
    ) -> PropertyList {
        var fields: [String: PropertyList] = [
            "NSExpressionType": .integer(4), "NSSelectorName": add(.string(selector)), "NSArguments": array(arguments),
        ]
        if let operand { fields["NSOperand"] = operand }
        let superclasses =
            className == "NSFunctionExpression" ? ["NSExpression"] : ["NSFunctionExpression", "NSExpression"]
        return object(className, superclasses: superclasses, fields)
    }

    /// Xcode's source fetch of `entity` with `predicate` (text).
    public mutating func fetch(_ entity: String, _ predicate: String) -> PropertyList {
        let request = function(
            operand: variable("manager"), selector: "fetchRequestForSourceEntityNamed:predicateString:",
            arguments: [constant(.string(entity)), constant(.string(predicate))])
        let context = keyPath("manager", "sourceContext")
        return object(
            "NSFetchRequestExpression",
            ["NSExpressionType": .integer(50), "NSFRExpression": request, "NSMOCExpression": context])
    }

    /// The archive with `root` as its root, as a binary property list.
    public func data(root: PropertyList) -> Data {
        BinaryPropertyListWriter().write(
            .dictionary([
                "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
                "$top": .dictionary(["root": root]), "$objects": .array(objects),
            ]))
    }

    /// The archive built by `body`, base64-encoded in lines of 76 characters as Core Data
    /// writes binary attributes.
    public static func base64(_ body: (inout ArchiveBuilder) -> PropertyList) -> String {
        var builder = ArchiveBuilder()
        let root = body(&builder)
        return builder.data(root: root).base64EncodedString(options: .lineLength76Characters)
    }
}

/// `xcmapping.xml` documents written the way Xcode writes them.
public enum XcodeMappingXML {
    /// A complete document: Xcode's header, DOCTYPE and store metadata, a mapping model object
    /// (`z1`, between the two model paths) listing `entityMappings`, and `objects`.
    public static func document(
        entityMappings: [String]?, _ objects: String, source: String = "App/Model.xcdatamodeld/Model.xcdatamodel",
        destination: String = "App/Model.xcdatamodeld/Model 2.xcdatamodel"
    ) -> String {
        let list =
            entityMappings.map {
                "\n        <relationship name=\"entitymappings\" type=\"0/0\" destination=\"XDDEVENTITYMAPPING\" idrefs=\"\($0.joined(separator: " "))\"></relationship>"
            } ?? ""
        return """
            <?xml version="1.0" standalone="yes"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

            <database>
                <databaseInfo>
                    <version>134481920</version>
                    <UUID>3F477D57-4044-4E9E-9845-6B9B63B11BB7</UUID>
                    <nextObjectID>200</nextObjectID>
                </databaseInfo>
                <object type="XDDEVMAPPINGMODEL" id="z1">
                    <attribute name="sourcemodelpath" type="string">\(source)</attribute>
                    <attribute name="destinationmodelpath" type="string">\(destination)</attribute>\(list)
                </object>
            \(objects)
            </database>
            """
    }

    /// An entity mapping object; `autogenerated` is the editor's "Source Fetch: Default" flag
    /// (`autogenerateexpression`), which a custom source fetch clears.
    public static func entityMapping(
        _ id: String, number: Int, source: String?, destination: String?, type: String = "Undefined",
        attributes: [String] = [], relationships: [String] = [], extra: String = "", autogenerated: Bool = true
    ) -> String {
        var lines = ["    <object type=\"XDDEVENTITYMAPPING\" id=\"\(id)\">"]
        if let source { lines.append("        <attribute name=\"sourcename\" type=\"string\">\(source)</attribute>") }
        if let destination {
            lines.append("        <attribute name=\"destinationname\" type=\"string\">\(destination)</attribute>")
        }
        lines.append("        <attribute name=\"mappingtypename\" type=\"string\">\(type)</attribute>")
        lines.append("        <attribute name=\"mappingnumber\" type=\"int16\">\(number)</attribute>")
        if autogenerated {
            lines.append("        <attribute name=\"autogenerateexpression\" type=\"bool\">1</attribute>")
        }
        if !extra.isEmpty { lines.append(extra) }
        lines.append(
            "        <relationship name=\"mappingmodel\" type=\"1/1\" destination=\"XDDEVMAPPINGMODEL\" idrefs=\"z1\"></relationship>"
        )
        lines.append(
            "        <relationship name=\"attributemappings\" type=\"0/0\" destination=\"XDDEVATTRIBUTEMAPPING\" idrefs=\"\(attributes.joined(separator: " "))\"></relationship>"
        )
        lines.append(
            "        <relationship name=\"relationshipmappings\" type=\"0/0\" destination=\"XDDEVRELATIONSHIPMAPPING\" idrefs=\"\(relationships.joined(separator: " "))\"></relationship>"
        )
        lines.append("    </object>")
        return lines.joined(separator: "\n")
    }

    /// An attribute (or relationship) mapping object, with a value expression when given.
    public static func propertyMapping(
        _ id: String, name: String, owner: String, expression: String? = nil, relationship: Bool = false
    ) -> String {
        let type = relationship ? "XDDEVRELATIONSHIPMAPPING" : "XDDEVATTRIBUTEMAPPING"
        var lines = ["    <object type=\"\(type)\" id=\"\(id)\">"]
        if let expression {
            lines.append("        <attribute name=\"valueexpressiondata\" type=\"binary\">\(expression)\n</attribute>")
        }
        lines.append("        <attribute name=\"name\" type=\"string\">\(name)</attribute>")
        lines.append(
            "        <relationship name=\"entitymapping\" type=\"1/1\" destination=\"XDDEVENTITYMAPPING\" idrefs=\"\(owner)\"></relationship>"
        )
        lines.append("    </object>")
        return lines.joined(separator: "\n")
    }

    /// A binary attribute line.
    public static func binary(_ name: String, _ base64: String) -> String {
        "        <attribute name=\"\(name)\" type=\"binary\">\(base64)\n</attribute>"
    }

    /// The 1-based line of the first line of `text` containing `needle`.
    public static func line(of needle: String, in text: String) -> Int {
        let lines = text.components(separatedBy: "\n")
        return (lines.firstIndex { $0.contains(needle) } ?? -1) + 1
    }

    /// Reads `text` as the `xcmapping.xml` called "xcmapping.xml".
    public static func read(_ text: String) throws -> MappingModel {
        try XcodeMappingReader().read(Data(text.utf8), file: "xcmapping.xml")
    }

    /// The error reading `text` gives, as one line (nil when it reads).
    public static func error(_ text: String) -> String? {
        do {
            _ = try read(text)
            return nil
        } catch let error as MoltError {
            return error.description
        } catch {
            return "\(error)"
        }
    }
}
