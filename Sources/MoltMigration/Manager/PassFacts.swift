import MoltCore
import MoltMapping
import MoltModel
import MoltStore

/// What choosing how one pass's entity mappings are related needs, all of it known before any
/// object is read: the two stores' layouts (made from the models, as the stores' own are), the
/// pass's mapping model worked out by its resolver, and its mappings' numbers.
struct PassFacts {
    let sourceLayout: StoreLayout
    let destinationLayout: StoreLayout
    let resolver: MappingResolver
    private let numbers: [String: Int]

    init(sourceLayout: StoreLayout, destinationLayout: StoreLayout, resolver: MappingResolver) {
        self.sourceLayout = sourceLayout
        self.destinationLayout = destinationLayout
        self.resolver = resolver
        var numbers: [String: Int] = [:]
        for (index, mapping) in resolver.mappingModel.entityMappings.enumerated() {
            numbers[mapping.name] = index + 1
        }
        self.numbers = numbers
    }

    var destinationModel: ObjectModel { destinationLayout.model }

    /// The mapping's values, resolved and compiled.
    func compiled(_ mapping: EntityMapping) -> CompiledMapping {
        CompiledMapping(resolved: resolver.resolve(mapping), sourceModel: sourceLayout.model)
    }

    /// The mapping's number in its pass, from 1 (what the association table records).
    func number(of mapping: String) throws -> Int {
        guard let number = numbers[mapping] else {
            throw MoltError(.migration, "there is no entity mapping called \"\(mapping)\"")
        }
        return number
    }
}
