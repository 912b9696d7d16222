public import MoltCore

/// Core Data's rules for composite attributes, each broken rule an error naming the composite
/// (or the entity) and the element, with the file and line.
///
/// From Core Data's own checks (`NSCompositeAttributeDescription`, read in decompiled builds
/// of iOS 18.2 and 26.1):
/// - an element is an attribute of type Integer 16/32/64, Decimal, Double, Float, String,
///   Boolean, Date, Binary (without external storage), UUID, URI, Transformable, or Composite
///   (a nested composite); Undefined, ObjectID and Binary with external storage are refused
///   ("does not yet support elements of type …");
/// - a composite attribute holds at most 1,000 elements in all, nested composites and their
///   elements counted;
/// - preserving values in history on deletion: only a root composite and leaves may be
///   marked; a marked root composite needs every leaf marked, and a marked leaf needs its root
///   composite marked.
///
/// And Molt's, for what Core Data's runtime makes impossible: a composite attribute must name
/// a composite of the model; composite names are unique; a composite may not contain itself;
/// element names are unique within a composite; no property name contains "." (a composite's
/// leaves are addressed by dotted paths).
public struct CompositeRules: Sendable {
    /// Core Data's limit on the elements of one composite attribute.
    public static let maximumElements = 1_000

    public init() {}

    /// Every broken rule of `model`.
    public func check(_ model: ObjectModel) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        func error(_ message: String, _ location: SourceLocation?, _ owner: String?, _ property: String?) {
            problems.append(
                Diagnostic(
                    .error, message, location: location ?? model.sourceFile.map { SourceLocation(file: $0) },
                    entity: owner, property: property))
        }
        var seen: Set<String> = []
        for composite in model.composites {
            if !seen.insert(composite.name).inserted {
                error("another composite has the same name", composite.location, composite.name, nil)
            }
            var names: Set<String> = []
            for element in composite.attributes {
                if !names.insert(element.name).inserted {
                    error("two elements are called \"\(element.name)\"", element.location, composite.name, element.name)
                }
                if let problem = Self.elementProblem(element) {
                    error(problem, element.location, composite.name, element.name)
                }
                if element.type == .composite, element.preservesValueInHistoryOnDeletion {
                    error(
                        "a nested composite cannot preserve its value on deletion (only a root composite and leaves can)",
                        element.location, composite.name, element.name)
                }
            }
            if reachesItself(composite.name, in: model) {
                error("the composite contains itself", composite.location, composite.name, nil)
            }
        }
        for composite in model.composites {
            for element in composite.attributes where element.name.contains(".") {
                error("an element name cannot contain \".\"", element.location, composite.name, element.name)
            }
        }
        for entity in model.entities {
            for attribute in entity.attributes where attribute.name.contains(".") {
                error("a property name cannot contain \".\"", attribute.location, entity.name, attribute.name)
            }
            for attribute in entity.attributes where attribute.type == .composite {
                check(attribute, of: entity, in: model, report: error)
            }
        }
        return problems
    }

    private func check(
        _ attribute: Attribute, of entity: Entity, in model: ObjectModel,
        report: (String, SourceLocation?, String?, String?) -> Void
    ) {
        guard let name = attribute.compositeName, model.composite(named: name) != nil else {
            report(
                "the composite \"\(attribute.compositeName ?? "")\" does not exist", attribute.location, entity.name,
                attribute.name)
            return
        }
        let count = elementCount(of: name, in: model, visiting: [])
        if count > Self.maximumElements {
            report(
                "the composite holds \(count) elements in all; Core Data supports at most \(Self.maximumElements)",
                attribute.location, entity.name, attribute.name)
        }
        let leaves = model.leaves(of: attribute)
        if attribute.preservesValueInHistoryOnDeletion {
            for leaf in leaves where !leaf.preservesValueInHistoryOnDeletion {
                report(
                    "the composite preserves its value on deletion but its element \(leaf.name) does not",
                    attribute.location, entity.name, attribute.name)
            }
        } else {
            for leaf in leaves where leaf.preservesValueInHistoryOnDeletion {
                report(
                    "the element \(leaf.name) preserves its value on deletion but its composite does not",
                    attribute.location, entity.name, attribute.name)
            }
        }
    }

    /// Why Core Data refuses `element` in a composite, or nil.
    static func elementProblem(_ element: Attribute) -> String? {
        switch element.type {
        case .undefined, .objectID:
            return "Core Data does not support composite elements of type \(element.type.rawValue)"
        case .binary where element.allowsExternalBinaryDataStorage:
            return "Core Data does not support composite elements of type Binary with external storage"
        default:
            return nil
        }
    }

    /// The elements a composite holds, nested ones and their elements counted; a cycle counts
    /// once.
    private func elementCount(of name: String, in model: ObjectModel, visiting: Set<String>) -> Int {
        guard !visiting.contains(name), let composite = model.composite(named: name) else { return 0 }
        var count = 0
        for element in composite.attributes {
            count += 1
            if element.type == .composite, let inner = element.compositeName {
                count += elementCount(of: inner, in: model, visiting: visiting.union([name]))
                if count > Self.maximumElements * 2 { break }
            }
        }
        return count
    }

    private func reachesItself(_ name: String, in model: ObjectModel) -> Bool {
        var stack = [name]
        var seen: Set<String> = []
        while let current = stack.popLast() {
            guard let composite = model.composite(named: current) else { continue }
            for element in composite.attributes where element.type == .composite {
                guard let inner = element.compositeName else { continue }
                if inner == name { return true }
                if seen.insert(inner).inserted { stack.append(inner) }
            }
        }
        return false
    }
}
