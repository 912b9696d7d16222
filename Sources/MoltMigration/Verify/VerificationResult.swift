/// What ``UpgradeVerification`` found for one store. Encoded as it is for `molt verify --json`
/// (stable keys).
public struct VerificationResult: Sendable, Encodable {
    /// Why a store failed.
    public enum FailureKind: String, Sendable, Encodable {
        /// The store or seed could not be read or made into a store.
        case input
        /// The store or seed breaks its own version's rules (a uniqueness constraint, a
        /// required value, a count, a range): the fixture is wrong, not the migration.
        case fixture
        /// No version given matches the store (Core Data's 134130).
        case unknownVersion
        /// The upgrade failed: a policy threw, a step had no mapping, a store newer than the
        /// destination, validation in a step.
        case migration
        /// The upgraded store breaks the destination model's rules.
        case validation
        /// `molt dump --json` of the upgraded store differs from `NAME.expected.json`.
        case expected
    }

    /// Why the store failed.
    public struct Failure: Sendable, Encodable {
        public let kind: FailureKind
        /// Core Data's code, for an error that has one.
        public let code: Int?
        public var message: String
        /// For `expected`: the lines that differ, with a few around them.
        public let difference: String?
    }

    /// The store as `molt verify` names it (its path as found under the folder given).
    public let name: String
    /// The version the store or seed was at, when known.
    public internal(set) var from: String?
    /// The version it was upgraded to, when it got there.
    public internal(set) var to: String?
    /// The upgrade's steps.
    public internal(set) var steps = 0
    /// Whether an expected dump was compared.
    public internal(set) var comparedDump = false
    /// How long the check took.
    public internal(set) var seconds = 0.0
    public internal(set) var failure: Failure?

    public var passed: Bool { failure == nil }

    init(name: String) {
        self.name = name
    }

    private enum CodingKeys: String, CodingKey {
        case name, from, to, steps, comparedDump, seconds, passed, failure
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(from, forKey: .from)
        try container.encodeIfPresent(to, forKey: .to)
        try container.encode(steps, forKey: .steps)
        try container.encode(comparedDump, forKey: .comparedDump)
        try container.encode((seconds * 1000).rounded() / 1000, forKey: .seconds)
        try container.encode(passed, forKey: .passed)
        try container.encodeIfPresent(failure, forKey: .failure)
    }
}
