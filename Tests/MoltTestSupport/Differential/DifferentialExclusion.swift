internal import Foundation

/// A feature the differential generator can leave out, because cases using it diverge for a
/// known reason and would hide other divergences. Each names the reason. The exclusions in
/// force are ``known`` (none by default, so the suite reports every known divergence until
/// the engine is fixed), plus those `MOLT_DIFFERENTIAL_EXCLUDE` names (comma-separated names,
/// or `all`) to hunt for other divergences.
public struct DifferentialExclusion: Hashable, Sendable, CustomStringConvertible {
    /// A short name.
    public let name: String
    /// What is left out, and why.
    public let reason: String

    /// An exclusion called `name`.
    public init(_ name: String, reason: String) {
        self.name = name
        self.reason = reason
    }

    public var description: String { "\(name): \(reason)" }

    /// Only relationship values whose links agree with their inverse's: no value naming an
    /// entity mapping when other mappings of the pass make objects of the relationship's entity
    /// too (it keeps only some of them), none reading another source relationship than the
    /// destination relationship's own.
    public static let disagreeingSides = DifferentialExclusion(
        "disagreeing-sides",
        reason: "the relate pass in SQL assumes the two sides of a relationship have the same links; when "
            + "values make them disagree, object by object the later write wins (each object's, or the "
            + "later mapping's), while in SQL each side is written whole, or skipped as written from the "
            + "other side (RelateInSQL.strategy(for:))")

    /// No to-many relationship becoming a to-one (by a model change, or a value from a to-many).
    public static let toManyIntoToOne = DifferentialExclusion(
        "to-many-into-to-one",
        reason: "the relate pass in SQL skips a to-one whose inverse it wrote from the other side, so an "
            + "object given two related objects is not refused (the object-by-object pass fails with 134110)")

    /// Every pass's entity mappings numbered after the earlier passes' (each later pass starts
    /// with `add` mappings that make nothing, one per mapping of the passes before it).
    public static let repeatedMappingNumbers = DifferentialExclusion(
        "repeated-mapping-numbers",
        reason: "the relate pass in SQL keeps what it wrote in one pass for the next (MigrationManager's "
            + "relateState.written), where mapping numbers start again at 1, and skips relationships a later "
            + "pass must write as if their inverse had been written")

    /// Every exclusion the generator knows.
    public static let all: [DifferentialExclusion] = [
        disagreeingSides, toManyIntoToOne, repeatedMappingNumbers,
    ]

    /// The exclusions in force whatever the environment says.
    public static let known: Set<DifferentialExclusion> = []

    /// ``known`` and those `MOLT_DIFFERENTIAL_EXCLUDE` names.
    public static var inForce: Set<DifferentialExclusion> {
        let names = (ProcessInfo.processInfo.environment["MOLT_DIFFERENTIAL_EXCLUDE"] ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if names.contains("all") { return known.union(all) }
        return known.union(all.filter { names.contains($0.name) })
    }
}
