/// Data a migration step does not carry into the new version: objects of an entity nothing
/// maps, values of an attribute nothing reads, links of a relationship neither side of which is
/// kept. Plans, dry runs and reports list them, so that nothing is lost without a word.
///
/// ```swift
/// for discarded in report.discarded { print(discarded) }
/// // 12 Tag objects: the mapping RemoveTag removes them
/// // 3 values of Post.legacyCode: no value of the mapping reads them
/// ```
public struct DiscardedData: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Objects of a source entity (not its sub-entities) that no entity mapping reads.
        case objects(entity: String)
        /// The values of an attribute of a source entity's objects that no mapping reads.
        case attributeValues(entity: String, attribute: String)
        /// The links of a source entity's relationship that no mapping keeps, on either side.
        case links(entity: String, relationship: String)
        /// Objects of a source entity that the filters of every mapping reading it leave out.
        case filteredObjects(entity: String)
    }

    public var kind: Kind
    /// How many: objects, objects with a value (not NULL), or links. Nil when not counted (a
    /// plan's later step, whose store does not exist yet).
    public var count: Int?
    /// Why the data is not carried over.
    public var reason: String
    /// The policy of the mapping that reads these objects, which may read the data all the
    /// same (Molt cannot see inside it).
    public var policy: String?

    public init(kind: Kind, count: Int? = nil, reason: String, policy: String? = nil) {
        self.kind = kind
        self.count = count
        self.reason = reason
        self.policy = policy
    }

    /// What is discarded, with the count when there is one: "12 Tag objects", "1 value of
    /// Post.legacyCode", "links of Post.tags" (uncounted).
    public var subject: String {
        let one = count == 1
        let number = count.map { "\($0) " } ?? ""
        switch kind {
        case .objects(let entity): return "\(number)\(entity) object\(one ? "" : "s")"
        case .attributeValues(let entity, let attribute):
            return "\(number)value\(one ? "" : "s") of \(entity).\(attribute)"
        case .links(let entity, let relationship): return "\(number)link\(one ? "" : "s") of \(entity).\(relationship)"
        case .filteredObjects(let entity): return "\(number)\(entity) object\(one ? "" : "s") left out by a filter"
        }
    }

    /// "12 Tag objects: the mapping RemoveTag removes them"; with a policy, "3 values of
    /// Person.phone: no value of the mapping PersonToPerson reads them; the policy SplitPolicy
    /// may carry them".
    public var description: String {
        "\(subject): \(reason)\(policy.map { "; the policy \($0) may carry them" } ?? "")"
    }

    /// Whether nothing is lost after all: counted, and none.
    public var isEmpty: Bool { count == 0 }
}
