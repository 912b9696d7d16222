public import Foundation
public import MoltCore
internal import MoltXML

/// Reads mapping files (Molt's XML format, documented in `MappingModels/README.md`).
///
/// Reading parses the XML safely (no network, no entities, no DTD), validates it against the
/// schema (`mapping.xsd`), then reads the entity mappings: every expression and filter is
/// parsed once. Problems are collected with file, line and column; ``read(contentsOf:displayName:)`` throws
/// the first, ``readReportingAll(contentsOf:displayName:)`` returns them all (what `molt check-mapping`
/// shows). Checking the mapping against its models is ``MappingChecker``'s work.
///
/// ```swift
/// let mapping = try MappingReader().read(contentsOf: URL(fileURLWithPath: "Blog1to2.xml"))
/// ```
public struct MappingReader {
    public init() {}

    /// Reads a mapping file; throws the first problem found. `displayName` (default: the
    /// path) names it in messages.
    public func read(contentsOf url: URL, displayName: String? = nil) throws -> MappingModel {
        let (model, diagnostics) = try readReportingAll(contentsOf: url, displayName: displayName)
        if let first = diagnostics.errors.first {
            var error = MoltError(
                .fileReadCorruptFile, first.message, location: first.location, entity: first.entity,
                property: first.property)
            if diagnostics.errors.count > 1 {
                error.details = diagnostics.errors.map(\.description)
                error.recovery =
                    "The file has \(diagnostics.errors.count) problems; `molt check-mapping` lists them all."
            }
            throw error
        }
        guard let model else {
            throw MoltError(
                .fileReadCorruptFile, "the mapping file could not be read",
                location: SourceLocation(file: displayName ?? url.path))
        }
        return model
    }

    /// Reads a mapping file, collecting every problem. The model is nil when the file is not
    /// usable at all (unreadable, not XML, or against the schema). Throws only when the file
    /// cannot be read.
    public func readReportingAll(
        contentsOf url: URL, displayName: String? = nil
    ) throws -> (MappingModel?, [Diagnostic]) {
        let name = displayName ?? url.path
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw FileErrors.readFailed(name, underlying: error)
        }
        return read(data, file: name)
    }

    /// Reads a mapping held in memory; `file` names it in messages.
    public func read(_ data: Data, file: String) -> (MappingModel?, [Diagnostic]) {
        let document: ParsedDocument
        do {
            document = try SafeXMLParser().parse(data, file: file, schema: MappingSchema.schema)
        } catch let failure as XMLValidationFailure {
            return (nil, failure.violations.map { Diagnostic(.error, $0.message, location: $0.location) })
        } catch let error as MoltError {
            return (nil, [Diagnostic(.error, error.message, location: error.location)])
        } catch {
            return (nil, [Diagnostic(.error, "\(error)", location: SourceLocation(file: file))])
        }
        var run = ReadRun(document: document, text: SourceText(file: file, data: data))
        let model = run.model()
        return (model, run.diagnostics)
    }
}

private struct ReadRun {
    let document: ParsedDocument
    let text: SourceText
    var diagnostics: [Diagnostic] = []
    /// How many elements of each name start on each line so far, to tell apart elements that
    /// share a line.
    var seenOnLine: [String: Int] = [:]

    init(document: ParsedDocument, text: SourceText) {
        self.document = document
        self.text = text
    }

    mutating func error(_ message: String, at location: SourceLocation?, entity: String? = nil, property: String? = nil)
    {
        diagnostics.append(Diagnostic(.error, message, location: location, entity: entity, property: property))
    }

    mutating func warning(
        _ message: String, at location: SourceLocation?, entity: String? = nil, property: String? = nil
    ) {
        diagnostics.append(Diagnostic(.warning, message, location: location, entity: entity, property: property))
    }

    mutating func ordinal(of element: ParsedElement) -> Int {
        let key = "\(element.name)@\(element.line)"
        let value = seenOnLine[key, default: 0]
        seenOnLine[key] = value + 1
        return value
    }

    mutating func model() -> MappingModel {
        let root = document.root
        var model = MappingModel(
            sourceModelName: root[attribute: "source-model"],
            destinationModelName: root[attribute: "destination-model"],
            propertyDefaults: MappingModel.PropertyDefaults(rawValue: root[attribute: "property-defaults"] ?? "")
                ?? .inferred,
            sourceFile: document.file)
        var names: Set<String> = []
        for element in root.children(named: "entity-mapping") {
            let mapping = entityMapping(element)
            if !names.insert(mapping.name).inserted {
                error("another entity mapping is called \"\(mapping.name)\"", at: document.location(of: element))
            }
            model.entityMappings.append(mapping)
        }
        return model
    }

    mutating func entityMapping(_ element: ParsedElement) -> EntityMapping {
        let location = document.location(of: element)
        _ = ordinal(of: element)
        let name = element[attribute: "name"] ?? ""
        let kind = EntityMapping.Kind(rawValue: element[attribute: "type"] ?? "") ?? .transform
        var mapping = EntityMapping(
            name: name, kind: kind, sourceEntityName: element[attribute: "source"],
            destinationEntityName: element[attribute: "destination"], policyName: element[attribute: "policy"],
            sourceVersionHash: element[attribute: "source-hash"].flatMap { Data(hexString: $0) },
            destinationVersionHash: element[attribute: "destination-hash"].flatMap { Data(hexString: $0) },
            location: location)
        var seenProperties: Set<String> = []
        for child in element.children {
            let childLocation = document.location(of: child)
            let childOrdinal = ordinal(of: child)
            switch child.name {
            case "filter":
                guard mapping.filter == nil else {
                    error("an entity mapping has at most one <filter>", at: childLocation, entity: name)
                    continue
                }
                let origin = text.content(of: "filter", line: child.line, ordinal: childOrdinal)
                mapping.filterOrigin = origin
                if let filter = expression(
                    child.text, origin: origin, fallback: childLocation, mapping: name, property: nil)
                {
                    if !EntityMappingRules.canBeCondition(filter) {
                        error(
                            "a filter must be a condition, such as status != \"deleted\"",
                            at: origin?.location(ofOffset: filter.offset, element: "filter") ?? childLocation,
                            entity: name)
                    }
                    mapping.filter = filter
                }
            case "attribute", "relationship":
                let property = child[attribute: "name"] ?? ""
                if !seenProperties.insert(property).inserted {
                    error("\"\(property)\" is mapped twice", at: childLocation, entity: name, property: property)
                }
                let origin = text.attributeValue("value", of: child.name, line: child.line, ordinal: childOrdinal)
                let raw = child[attribute: "value"] ?? ""
                let value: PropertyMapping.Value
                switch raw.trimmingCharacters(in: .whitespaces) {
                case "nil": value = .noValue
                case "default": value = .inferred
                default:
                    guard
                        let parsed = expression(
                            raw, origin: origin, fallback: childLocation, mapping: name, property: property)
                    else {
                        mapping.unreadableProperties.insert(property)
                        continue
                    }
                    value = .expression(parsed)
                }
                let propertyMapping = PropertyMapping(
                    name: property, value: value, location: childLocation, origin: origin)
                if child.name == "attribute" {
                    mapping.attributeMappings.append(propertyMapping)
                } else {
                    mapping.relationshipMappings.append(propertyMapping)
                }
            case "user-info":
                mapping.userInfo.append(
                    UserInfoEntry(key: child[attribute: "key"] ?? "", value: child[attribute: "value"] ?? ""))
            default:
                break  // the schema allows nothing else
            }
        }
        checkShape(of: mapping, at: location)
        return mapping
    }

    /// Parses an expression, reporting a syntax error at its file line and column.
    mutating func expression(
        _ source: String, origin: TextOrigin?, fallback: SourceLocation, mapping: String, property: String?
    )
        -> MappingExpression?
    {
        do {
            return try ExpressionParser().parse(source)
        } catch {
            let location = origin?.location(ofOffset: error.offset, element: fallback.element) ?? fallback
            self.error("syntax error: \(error.message)", at: location, entity: mapping, property: property)
            return nil
        }
    }

    /// What each mapping type needs and allows (``EntityMappingRules``).
    mutating func checkShape(of mapping: EntityMapping, at location: SourceLocation) {
        for (severity, message) in EntityMappingRules.problems(of: mapping) {
            diagnostics.append(Diagnostic(severity, message, location: location, entity: mapping.name))
        }
    }
}
