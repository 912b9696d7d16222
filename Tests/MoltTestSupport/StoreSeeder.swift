internal import Foundation
public import Molt

/// Fills a store with made-up objects for any model, the same every time for the same seed:
/// objects of every concrete entity, a value of the right type for every attribute (none for
/// some optional ones), and links for every relationship (lists in shuffled order, so order
/// is tested too; required ones always set).
///
/// ```swift
/// _ = try ObjectStore.create(at: url, model: model) { try StoreSeeder().fill($0) }
/// ```
public struct StoreSeeder: Sendable {
    /// Objects made per concrete entity.
    public var objectsPerEntity = 7
    /// The most objects put in one to-many relationship.
    public var maximumToMany = 3
    public var seed: UInt64 = 2026

    public init() {}

    /// The two stores the equivalence suites migrate every way: the default (lists of up to
    /// three objects), and one with at most one object per list, so that a change such as
    /// "to-many to to-one" has a store that migrates.
    public static let twoShapes: [StoreSeeder] = {
        var sparse = StoreSeeder()
        sparse.maximumToMany = 1
        sparse.seed = 7
        return [StoreSeeder(), sparse]
    }()

    public func fill(_ writer: ObjectWriter) throws {
        var random = SplitMix(seed: seed)
        let model = writer.layout.model
        var objects: [String: [ObjectID]] = [:]
        for entity in writer.layout.entities where !entity.isAbstract {
            for index in 0..<objectsPerEntity {
                var values: [String: AttributeValue] = [:]
                for column in entity.attributes {
                    let attribute = column.attribute
                    if attribute.isOptional, random.next(below: 4) == 0 { continue }
                    values[attribute.name] = Self.value(for: attribute, index: index, random: &random)
                }
                objects[entity.name, default: []].append(
                    try writer.insert(entity.name, attributes: values, applyingDefaults: false))
            }
        }
        // One side of each relationship pair is set; the writer keeps the other.
        var handled: Set<String> = []
        for entity in writer.layout.entities {
            for link in entity.relationships where link.declaringEntity == entity.name {
                var relationship = link.relationship
                var owner = entity.name
                guard handled.insert("\(owner).\(relationship.name)").inserted else { continue }
                if let inverse = model.inverse(of: relationship),
                    let target = model.entity(named: relationship.destinationEntityName),
                    let declaring = model.declaringEntity(ofRelationship: inverse.name, in: target)
                {
                    handled.insert("\(declaring.name).\(inverse.name)")
                    // A one-to-many is set from its to-many side unless the to-one is required.
                    let toOneFirst = !relationship.isToMany && inverse.isToMany && relationship.isOptional
                    let toManyFirst = relationship.isToMany && !inverse.isToMany && !inverse.isOptional
                    if toOneFirst || toManyFirst { (relationship, owner) = (inverse, declaring.name) }
                }
                try self.link(relationship, of: owner, model: model, objects: objects, writer: writer, random: &random)
            }
        }
    }

    private func link(
        _ relationship: Relationship, of entity: String, model: ObjectModel, objects: [String: [ObjectID]],
        writer: ObjectWriter, random: inout SplitMix
    ) throws {
        guard let owner = model.entity(named: entity),
            let target = model.entity(named: relationship.destinationEntityName)
        else { return }
        let owners = ([owner] + model.descendants(of: owner)).flatMap { objects[$0.name] ?? [] }
        let targets = ([target] + model.descendants(of: target)).flatMap { objects[$0.name] ?? [] }
        guard !targets.isEmpty else { return }
        let oneToOne = !relationship.isToMany && model.inverse(of: relationship)?.isToMany == false
        for (offset, id) in owners.enumerated() {
            if relationship.isToMany {
                let minimum = max(relationship.minCount, relationship.isOptional ? 0 : 1)
                let most = min(
                    targets.count,
                    max(minimum, relationship.maxCount > 0 ? min(maximumToMany, relationship.maxCount) : maximumToMany))
                let count = minimum + random.next(below: most - minimum + 1)
                var chosen = targets
                random.shuffle(&chosen)
                try writer.setToMany(id, relationship.name, to: Array(chosen.prefix(count)))
            } else if oneToOne {
                // Partners pair up in order, so no object is taken twice.
                if offset < targets.count, relationship.isOptional == false || random.next(below: 5) > 0 {
                    try writer.setToOne(id, relationship.name, to: targets[offset])
                }
            } else if !relationship.isOptional || random.next(below: 5) > 0 {
                try writer.setToOne(id, relationship.name, to: targets[random.next(below: targets.count)])
            }
        }
    }

    /// A value of the attribute's type that differs from object to object.
    static func value(for attribute: Attribute, index: Int, random: inout SplitMix) -> AttributeValue? {
        let number = Int64(random.next(below: 2000)) - 1000
        switch attribute.type {
        case .integer16: return .integer(number % 30_000)
        case .integer32: return .integer(number * 1000)
        case .integer64: return .integer(number * 1_000_000_007)
        case .double: return .double(Double(number) / 8)
        case .float: return .double(Double(number) / 4)
        case .decimal: return .decimal(Decimal(string: "\(number).25")!)
        case .boolean: return .bool(number % 2 == 0)
        case .string: return .string("\(attribute.name) \(index) \(number)")
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(number) * 86_400 + 0.5))
        case .binary, .transformable: return .data(Data("\(attribute.name)-\(number)".utf8))
        case .uuid:
            return .uuid(
                UUID(
                    uuid: (
                        UInt8(index), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, UInt8(truncatingIfNeeded: number)
                    )))
        case .uri: return .uri("https://example.com/\(attribute.name)/\(number)")
        case .undefined, .objectID, .composite: return nil
        }
    }
}

/// A small, fast, seeded random number generator (SplitMix64): a failing case replays from
/// its seed.
public struct SplitMix: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (0 when `bound` is 0).
    public mutating func next(below bound: Int) -> Int {
        bound <= 0 ? 0 : Int(next() % UInt64(bound))
    }

    public mutating func shuffle<T>(_ items: inout [T]) {
        guard items.count > 1 else { return }
        for index in stride(from: items.count - 1, to: 0, by: -1) {
            items.swapAt(index, next(below: index + 1))
        }
    }
}
