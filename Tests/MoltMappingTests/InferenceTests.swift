import Foundation
import MoltCore
import MoltMapping
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Inference on one catalog case.
struct InferredCase {
    let result: InferenceResult
    let source: ObjectModel
    let destination: ObjectModel

    init(_ name: String) throws {
        try self.init(InferenceCases.named(name))
    }

    init(_ inferenceCase: InferenceCase) throws {
        (source, destination) = try inferenceCase.models()
        result = MappingInference.infer(from: source, to: destination)
    }

    /// The inferred mapping; fails the test when there is none.
    func mapping() throws -> MappingModel {
        try #require(result.mapping, "not inferred: \(result.reasons.map(\.description))")
    }

    /// The entity mapping called `name`, with every destination property's value filled in.
    func resolved(_ name: String) throws -> ResolvedEntityMapping {
        let mapping = try mapping()
        let entityMapping = try #require(mapping.entityMapping(named: name), "no entity mapping \(name)")
        return MappingResolver(source: source, destination: destination, mappingModel: mapping).resolve(entityMapping)
    }

    /// The explicit value the mapping gives `attribute` in entity mapping `name`.
    func explicitValue(_ name: String, _ attribute: String) throws -> PropertyMapping.Value? {
        try #require(try mapping().entityMapping(named: name)).attributeMapping(named: attribute)?.value
    }
}

/// A property value parsed from an expression's text.
func inferredValue(_ text: String) throws -> PropertyMapping.Value {
    .expression(try ExpressionParser().parse(text))
}

@Suite("Inferring mappings")
struct InferenceTests {
    // MARK: The catalog

    @Test("every catalog model is valid and every entity has an attribute of its own", arguments: InferenceCases.all)
    func catalogModelsAreValid(_ inferenceCase: InferenceCase) throws {
        let (source, destination) = try inferenceCase.models()
        for model in [source, destination] {
            let diagnostics = ModelChecker().check(model)
            #expect(diagnostics.isEmpty, "\(model.name ?? ""): \(diagnostics.map(\.description))")
            for entity in model.entities {
                #expect(!entity.attributes.isEmpty, "\(model.name ?? "").\(entity.name) has no attribute")
            }
        }
        #expect(source != destination, "the two versions must differ")
    }

    @Test("the catalog has one case per rule and refusal, each named once")
    func catalogIsComplete() {
        let names = InferenceCases.all.map(\.name)
        #expect(Set(names).count == names.count, "duplicate case names")
        let required = [
            "add optional attribute", "add non-optional attribute with default", "remove attribute",
            "non-optional to optional", "optional to non-optional with default",
            "optional to non-optional without default", "new non-optional attribute without default",
            "rename entity, attribute and relationship", "canonical rename, v1 to v3", "canonical rename, v2 to v3",
            "add relationship", "delete relationship", "to-one to to-many", "to-many to to-one", "ordered to unordered",
            "unordered to ordered", "add entity", "remove entity", "new parent entity", "new child entity",
            "attribute moved up to parent", "attribute moved down to child", "entity moved out of a hierarchy",
            "entity moved into a hierarchy", "merging hierarchies", "new parent over two roots",
            "Integer 16 to Integer 64", "Integer 32 to Decimal", "Integer to String", "Boolean to Integer",
            "Float to Double", "String to Integer 32", "Integer 64 to Integer 16", "Double to Integer 32",
            "relationship leads to an unrelated entity", "new required relationship",
            "two destination entities from one source entity", "many-to-many unchanged",
        ]
        #expect(required.filter { !names.contains($0) } == [])
        #expect(InferenceCases.all.filter { !$0.inferable }.allSatisfy { !$0.reasonFragments.isEmpty })
    }

    @Test(
        "each case infers, or is refused with reasons naming entity, property and what to do",
        arguments: InferenceCases.all)
    func catalogResult(_ inferenceCase: InferenceCase) throws {
        let inferred = try InferredCase(inferenceCase)
        if inferenceCase.inferable {
            #expect(inferred.result.reasons.isEmpty, "\(inferred.result.reasons.map(\.description))")
            #expect(inferred.result.mapping != nil)
            return
        }
        #expect(inferred.result.mapping == nil)
        let reasons = inferred.result.reasons
        #expect(!reasons.isEmpty)
        let text = reasons.map(\.description).joined(separator: "\n")
        for fragment in inferenceCase.reasonFragments {
            #expect(text.contains(fragment), "missing \"\(fragment)\" in:\n\(text)")
        }
        for reason in reasons {
            let entity = try #require(inferred.destination.entity(named: reason.entity), "unknown entity in \(reason)")
            if let property = reason.property {
                let exists =
                    inferred.destination.attribute(named: property, in: entity) != nil
                    || inferred.destination.relationship(named: property, in: entity) != nil
                #expect(exists, "unknown property in \(reason)")
            }
            #expect(!reason.suggestion.isEmpty)
        }
    }

    @Test(
        "every inferred mapping checks without errors and round-trips through the writer and reader",
        arguments: InferenceCases.inferable)
    func inferredMappingsCheckAndRoundTrip(_ inferenceCase: InferenceCase) throws {
        let inferred = try InferredCase(inferenceCase)
        let mapping = try inferred.mapping()
        #expect(mapping.sourceModelName == inferenceCase.sourceName)
        #expect(mapping.destinationModelName == inferenceCase.destinationName)
        let diagnostics = MappingChecker(knownPolicies: []).check(
            mapping, source: inferred.source, destination: inferred.destination)
        #expect(diagnostics.errors.isEmpty, "\(diagnostics.errors.map(\.description))")
        #expect(diagnostics.warnings.isEmpty, "\(diagnostics.warnings.map(\.description))")
        let text = MappingWriter().text(of: mapping)
        let (read, problems) = MappingReader().read(Data(text.utf8), file: "inferred.xml")
        #expect(problems.isEmpty, "\(problems.map(\.description))")
        #expect(read == mapping, "\(text)")
        // Every concrete source entity is read by exactly one mapping, every destination entity
        // is made or added by exactly one.
        let concreteSources = inferred.source.entities.filter { !$0.isAbstract }.map(\.name)
        #expect(mapping.entityMappings.compactMap(\.sourceEntityName).sorted() == concreteSources.sorted())
        let made = mapping.entityMappings.filter { $0.kind != .remove }.compactMap(\.destinationEntityName)
        #expect(Set(made).count == made.count)
        #expect(
            Set(made)
                == Set(
                    inferred.destination.entities.filter { entity in
                        !entity.isAbstract
                            || mapping.entityMapping(named: "Add\(entity.name)") != nil
                    }.map(\.name)))
    }

    // MARK: What the mappings say

    @Test("a new attribute with a default takes it, a new optional one stays empty, a removed one is dropped")
    func addedAndRemovedAttributes() throws {
        let added = try InferredCase("add non-optional attribute with default").resolved("Book")
        #expect(added.attributes.first { $0.name == "inStock" }?.origin == .modelDefault)
        #expect(
            try InferredCase("add non-optional attribute with default").mapping().entityMappings.allSatisfy {
                $0.attributeMappings.isEmpty
            })
        let optional = try InferredCase("add optional attribute").resolved("Book")
        #expect(optional.attributes.first { $0.name == "subtitle" }?.value == .noValue)
        let removed = try InferredCase("remove attribute").resolved("Author")
        #expect(removed.attributes.map(\.name) == ["name", "rating"])
        #expect(removed.attributes.allSatisfy { $0.origin == .inferred(sourceProperty: $0.name) })
    }

    @Test("an optional attribute made non-optional takes its default for empty values")
    func optionalToNonOptional() throws {
        let inferred = try InferredCase("optional to non-optional with default")
        #expect(try inferred.explicitValue("Book", "pages") == inferredValue("coalesce($source.pages, 0)"))
        #expect(try inferred.mapping().entityMapping(named: "Book")?.attributeMappings.count == 1)
        let relaxed = try InferredCase("non-optional to optional")
        #expect(try relaxed.explicitValue("Book", "price") == nil, "the value is copied as it is")
    }

    @Test("a renamed entity, attribute and relationship map from their old names")
    func renames() throws {
        let inferred = try InferredCase("rename entity, attribute and relationship")
        let mapping = try inferred.mapping()
        #expect(mapping.entityMappings.map(\.name) == ["AuthorToWriter", "Book"])
        let writer = try #require(mapping.entityMapping(named: "AuthorToWriter"))
        #expect(
            writer.kind == .transform && writer.sourceEntityName == "Author" && writer.destinationEntityName == "Writer"
        )
        #expect(try inferred.explicitValue("Book", "heading") == inferredValue("$source.title"))
        let book = try inferred.resolved("Book")
        #expect(book.relationships.first { $0.name == "writer" }?.origin == .inferred(sourceProperty: "author"))
        let works = try inferred.resolved("AuthorToWriter").relationships.first { $0.name == "works" }
        #expect(works?.origin == .inferred(sourceProperty: "books"))
        #expect(
            works?.value
                == .expression(
                    try ExpressionParser().parse(
                        "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'Book', $source.books)"
                    )))
    }

    @Test("a renaming identifier kept across versions maps from the right attribute, from v1 and from v2")
    func canonicalRenames() throws {
        #expect(
            try InferredCase("canonical rename, v1 to v3").explicitValue("Book", "caption")
                == inferredValue("$source.title"))
        #expect(
            try InferredCase("canonical rename, v2 to v3").explicitValue("Book", "caption")
                == inferredValue("$source.heading"))
    }

    @Test("added and removed entities get add and remove mappings")
    func entities() throws {
        let added = try InferredCase("add entity").mapping()
        #expect(
            added.entityMapping(named: "AddPublisher")
                == EntityMapping(name: "AddPublisher", kind: .add, destinationEntityName: "Publisher"))
        let removed = try InferredCase("remove entity").mapping()
        #expect(
            removed.entityMapping(named: "RemovePublisher")
                == EntityMapping(name: "RemovePublisher", kind: .remove, sourceEntityName: "Publisher"))
        #expect(removed.entityMappings.map(\.name) == ["Author", "Book", "RemovePublisher"])
        let child = try InferredCase("new child entity").mapping()
        #expect(child.entityMappings.map(\.name) == ["Author", "Book", "AddEbook"])
    }

    @Test(
        "relationships that change cardinality or order keep their objects",
        arguments: ["to-one to to-many", "to-many to to-one", "ordered to unordered", "unordered to ordered"])
    func relationshipShapes(_ name: String) throws {
        let inferred = try InferredCase(name)
        for (mapping, relationship, sourceName) in [("Book", "series", "series"), ("Series", "books", "books")] {
            let value = try inferred.resolved(mapping).relationships.first { $0.name == relationship }
            #expect(value?.origin == .inferred(sourceProperty: sourceName))
        }
        func shape(_ model: ObjectModel, _ entity: String, _ name: String) -> [Bool]? {
            model.entity(named: entity).flatMap { model.relationship(named: name, in: $0) }.map {
                [$0.isToMany, $0.isOrdered]
            }
        }
        let before = [shape(inferred.source, "Book", "series"), shape(inferred.source, "Series", "books")]
        let after = [shape(inferred.destination, "Book", "series"), shape(inferred.destination, "Series", "books")]
        #expect(!before.contains(nil) && !after.contains(nil))
        #expect(before != after, "the case changes a relationship's shape")
    }

    @Test("properties moving through a hierarchy map from the attribute of the same name")
    func hierarchyMoves() throws {
        let up = try InferredCase("attribute moved up to parent")
        for name in ["Book", "Magazine"] {
            #expect(
                try up.resolved(name).attributes.first { $0.name == "language" }?.origin
                    == .inferred(sourceProperty: "language"))
        }
        let down = try InferredCase("attribute moved down to child")
        #expect(
            try down.resolved("Book").attributes.first { $0.name == "language" }?.origin
                == .inferred(sourceProperty: "language"))
        #expect(try down.resolved("Magazine").attributes.map(\.name) == ["title", "issue"])
        let out = try InferredCase("entity moved out of a hierarchy")
        #expect(
            try out.resolved("Magazine").attributes.first { $0.name == "title" }?.origin
                == .inferred(sourceProperty: "title"))
        let into = try InferredCase("entity moved into a hierarchy")
        #expect(
            try into.resolved("Magazine").attributes.first { $0.name == "title" }?.origin
                == .inferred(sourceProperty: "title"))
        let parent = try InferredCase("new parent entity").mapping()
        #expect(parent.entityMappings.map(\.name) == ["Author", "Book", "AddItem"])
    }

    @Test("an integer turned into text is mapped with string(); widened numbers are copied as they are")
    func typeChangeValues() throws {
        #expect(
            try InferredCase("Integer to String").explicitValue("Book", "isbn") == inferredValue("string($source.isbn)")
        )
        for name in ["Integer 16 to Integer 64", "Integer 32 to Decimal", "Boolean to Integer", "Float to Double"] {
            #expect(
                try InferredCase(name).mapping().entityMappings.allSatisfy { $0.attributeMappings.isEmpty }, "\(name)")
        }
    }

    @Test("refusals name the entity and property, say what is wrong and what to do")
    func reasons() throws {
        let isbn = try #require(try InferredCase("new non-optional attribute without default").result.reasons.first)
        #expect(isbn.entity == "Book" && isbn.property == "isbn")
        #expect(isbn.message == "the new attribute is not optional and has no default value")
        #expect(isbn.suggestion.contains("renaming identifier"))
        let born = try InferredCase("optional to non-optional without default").result.reasons
        #expect(born.map { [$0.entity, $0.property] } == [["Author", "born"]])
        let type = try #require(try InferredCase("String to Integer 32").result.reasons.first)
        #expect(type.property == "edition")
        #expect(type.suggestion.contains("<attribute name=\"edition\" value=\"…($source.edition)\"/>"))
        let merge = try InferredCase("merging hierarchies").result.reasons
        #expect(merge.count == 1)
        #expect(merge.first?.entity == "Magazine" && merge.first?.property == nil)
        #expect(merge.first?.message.contains("rooted at Magazine and Publication") == true)
    }

    // MARK: Hierarchies

    /// A model of entities (name, parent), each with one optional attribute of its own.
    static func hierarchy(_ name: String, _ entities: [(String, String?)]) -> ObjectModel {
        ObjectModel(
            entities: entities.map { entity, parent in
                Entity(
                    name: entity, parentName: parent,
                    attributes: [Attribute(name: "\(entity.lowercased())Code", type: .string, isOptional: true)])
            }, name: name)
    }

    @Test("a root with sub-entities may move under a root that has no existing sub-entity")
    func hierarchyMovesUnderChildlessRoot() throws {
        let source = Self.hierarchy("V1", [("Place", nil), ("Room", nil), ("Office", "Room")])
        let destination = Self.hierarchy("V2", [("Place", nil), ("Room", "Place"), ("Office", "Room")])
        let mapping = try #require(MappingInference.infer(from: source, to: destination).mapping)
        #expect(mapping.entityMappings.map(\.name) == ["Place", "Room", "Office"])
    }

    @Test("a root moved under a sub-entity is refused: it would share that sub-entity's parent")
    func hierarchyMovesUnderSubentity() throws {
        let source = Self.hierarchy("V1", [("Place", nil), ("Room", "Place"), ("Desk", nil)])
        let destination = Self.hierarchy("V2", [("Place", nil), ("Room", "Place"), ("Desk", "Room")])
        let reasons = MappingInference.infer(from: source, to: destination).reasons
        #expect(reasons.map(\.entity) == ["Desk"])
        #expect(reasons.first?.message.contains("Desk and Room were in separate hierarchies") == true)
        #expect(reasons.first?.message.contains("both would descend from Place") == true)
    }

    @Test("an entity moved within its hierarchy, or out of it with its sub-entities, is accepted")
    func hierarchyReshuffles() throws {
        let source = Self.hierarchy("V1", [("Item", nil), ("Book", "Item"), ("Ebook", "Book"), ("Audiobook", "Ebook")])
        let flattened = Self.hierarchy(
            "V2", [("Item", nil), ("Book", "Item"), ("Ebook", "Item"), ("Audiobook", "Item")])
        #expect(MappingInference.infer(from: source, to: flattened).reasons.isEmpty)
        let split = Self.hierarchy("V2", [("Item", nil), ("Book", "Item"), ("Ebook", nil), ("Audiobook", "Ebook")])
        #expect(MappingInference.infer(from: source, to: split).reasons.isEmpty)
    }

    @Test("merging two hierarchies gives one reason, not one per pair of their entities")
    func oneReasonPerMerge() throws {
        let source = Self.hierarchy(
            "V1", [("Book", nil), ("Ebook", "Book"), ("Audiobook", "Book"), ("Film", nil), ("Series", "Film")])
        let destination = Self.hierarchy(
            "V2",
            [
                ("Media", nil), ("Book", "Media"), ("Ebook", "Book"), ("Audiobook", "Book"), ("Film", "Media"),
                ("Series", "Film"),
            ])
        let reasons = MappingInference.infer(from: source, to: destination).reasons
        #expect(reasons.count == 1, "\(reasons.map(\.description))")
        #expect(reasons.first?.message.contains("rooted at Film and Book") == true)
        #expect(reasons.first?.message.contains("descend from Media") == true)
    }

    @Test("inference stays fast on a model of 300 entities")
    func largeModels() throws {
        // 30 hierarchies of 10 entities, each with attributes and a relationship to the next root.
        func model(_ name: String, merged: Bool, renamed: Bool) -> ObjectModel {
            var entities: [Entity] =
                merged
                ? [Entity(name: "Base", attributes: [Attribute(name: "baseCode", type: .string, isOptional: true)])]
                : []
            for tree in 0..<30 {
                for member in 0..<10 {
                    let entity = "E\(tree)x\(member)"
                    let attributes = (0..<4).map { index in
                        Attribute(
                            name: renamed && index == 0 ? "renamed\(index)\(entity)" : "a\(index)\(entity)",
                            type: .integer32,
                            isOptional: true, renamingIdentifier: renamed && index == 0 ? "a\(index)\(entity)" : nil)
                    }
                    let next = "E\((tree + 1) % 30)x0"
                    entities.append(
                        Entity(
                            name: entity, parentName: member == 0 ? (merged ? "Base" : nil) : "E\(tree)x\(member - 1)",
                            attributes: attributes,
                            relationships: [Relationship(name: "link\(entity)", destinationEntityName: next)]))
                }
            }
            return ObjectModel(entities: entities, name: name)
        }
        let source = model("V1", merged: false, renamed: false)
        var renamedResult: InferenceResult?
        var mergedResult: InferenceResult?
        let elapsed = ThreadCPUTime.measure {
            renamedResult = MappingInference.infer(from: source, to: model("V2", merged: false, renamed: true))
            mergedResult = MappingInference.infer(from: source, to: model("V2", merged: true, renamed: false))
        }
        let mapping = try #require(renamedResult?.mapping)
        #expect(mapping.entityMappings.count == 300)
        // Each entity maps its own renamed attribute and those it inherits from its ancestors.
        #expect(
            mapping.entityMappings.map(\.attributeMappings.count) == (0..<30).flatMap { _ in (1...10).map { $0 } })
        #expect(mergedResult?.reasons.count == 30 * 29 / 2, "one reason per pair of merged hierarchies")
        #expect(elapsed < .seconds(5), "took \(elapsed) of processor time")
    }
}

// MARK: - Type changes

extension InferenceTests {
    @Suite("Type changes inference accepts")
    struct TypeChangeTests {
        /// The documented table of ``TypeChanges``: each old type with the new types it may take.
        static let table: [AttributeType: Set<AttributeType>] = [
            .integer16: [.integer32, .integer64, .double, .decimal, .string],
            .integer32: [.integer64, .double, .decimal, .string],
            .integer64: [.double, .decimal, .string],
            .boolean: [.integer16, .integer32, .integer64],
            .float: [.double],
            .uri: [.string],
            .transformable: [.binary],
        ]

        @Test("the safe changes are exactly the documented table")
        func exactlyTheTable() {
            let types = AttributeType.allCases.filter(\.isPersistable)
            for old in types {
                for new in types {
                    let expected = old == new || Self.table[old]?.contains(new) == true
                    #expect(TypeChanges.isSafe(from: old, to: new) == expected, "\(old.rawValue) → \(new.rawValue)")
                }
            }
        }

        /// An entity Item whose attribute `x` changes from `old` to `new`.
        static func models(_ old: AttributeType, _ new: AttributeType) -> (ObjectModel, ObjectModel) {
            func model(_ name: String, _ type: AttributeType) -> ObjectModel {
                ObjectModel(
                    entities: [Entity(name: "Item", attributes: [Attribute(name: "x", type: type, isOptional: true)])],
                    name: name)
            }
            return (model("V1", old), model("V2", new))
        }

        static let big = Int64(1) << 53

        @Test(
            "each row turns a value into its one value in the new type",
            arguments: [
                (
                    AttributeType.integer16, AttributeType.integer32, ExpressionValue.integer(-32768),
                    AttributeValue.integer(-32768)
                ),
                (.integer16, .integer64, .integer(32767), .integer(32767)),
                (.integer32, .integer64, .integer(-2_147_483_648), .integer(-2_147_483_648)),
                (.integer16, .double, .integer(-7), .double(-7)),
                (.integer32, .double, .integer(2_147_483_647), .double(2_147_483_647)),
                (.integer64, .double, .integer(big), .double(9_007_199_254_740_992)),
                (.integer64, .double, .integer(big + 1), .double(9_007_199_254_740_992)),
                (.integer16, .decimal, .integer(12), .decimal(12)),
                (.integer32, .decimal, .integer(-40000), .decimal(-40000)),
                (.integer64, .decimal, .integer(.max), .decimal(Decimal(Int64.max))),
                (.integer16, .string, .integer(-42), .string("-42")),
                (.integer32, .string, .integer(2_147_483_647), .string("2147483647")),
                (.integer64, .string, .integer(.min), .string("-9223372036854775808")),
                (.boolean, .integer16, .bool(true), .integer(1)),
                (.boolean, .integer32, .bool(false), .integer(0)),
                (.boolean, .integer64, .bool(true), .integer(1)),
                (.float, .double, .double(Double(Float(0.1))), .double(Double(Float(0.1)))),
                (.uri, .string, .uri("https://example.com/a?b=c"), .string("https://example.com/a?b=c")),
                (
                    .transformable, .binary, .data(Data([0x62, 0x70, 0x6C, 0x69])),
                    .data(Data([0x62, 0x70, 0x6C, 0x69]))
                ),
            ])
        func rows(old: AttributeType, new: AttributeType, value: ExpressionValue, expected: AttributeValue) throws {
            let (source, destination) = Self.models(old, new)
            let mapping = try #require(MappingInference.infer(from: source, to: destination).mapping)
            #expect(MappingChecker().check(mapping, source: source, destination: destination).isEmpty)
            let resolved = MappingResolver(source: source, destination: destination, mappingModel: mapping)
                .resolve(try #require(mapping.entityMapping(named: "Item")))
            guard case .expression(let expression)? = resolved.attributes.first(where: { $0.name == "x" })?.value else {
                Issue.record("x has no value expression")
                return
            }
            let item = ObjectID(entity: "Item", primaryKey: 1)
            let objects = MemoryResolver()
            objects.objects = [item: ["x": value]]
            let context = EvaluationContext(
                variables: ["source": .object(ObjectReference(.source, item))], resolver: objects)
            let result = try ExpressionCompiler.compile(expression).evaluate(context)
            let attribute = try #require(destination.entity(named: "Item")?.attribute(named: "x"))
            #expect(try AttributeAssignment.convert(result, to: attribute) == expected)
        }

        @Test(
            "other changes are refused, naming the attribute and both types",
            arguments: [
                (AttributeType.string, AttributeType.integer32), (.integer64, .integer16), (.integer32, .integer16),
                (.double, .integer32), (.double, .float), (.decimal, .double), (.double, .string), (.float, .string),
                (.boolean, .string), (.uuid, .string), (.string, .uri), (.binary, .transformable), (.date, .double),
                (.integer64, .boolean), (.string, .date), (.integer32, .float),
            ])
        func refusals(old: AttributeType, new: AttributeType) throws {
            let (source, destination) = Self.models(old, new)
            let reasons = MappingInference.infer(from: source, to: destination).reasons
            #expect(reasons.count == 1)
            #expect(reasons.first?.entity == "Item" && reasons.first?.property == "x")
            #expect(reasons.first?.message.contains("from \(old.rawValue) to \(new.rawValue)") == true)
        }
    }
}
