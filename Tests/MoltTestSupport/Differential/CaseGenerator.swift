/// Makes the differential case of a seed, deterministically: the same seed and attempt always
/// give the same case. An attempt that turns out invalid (a model or mapping the checkers
/// reject, a store the seeder cannot fill) is followed by the next attempt, from the next
/// sub-seed.
public struct CaseGenerator: Sendable {
    /// Generation features left out for now.
    public var exclusions: Set<DifferentialExclusion>
    /// How often a step's mapping is inferred rather than written as files, in percent.
    public var inferredPercent = 30

    /// A generator leaving out `exclusions` (by default those in force).
    public init(exclusions: Set<DifferentialExclusion> = DifferentialExclusion.inForce) {
        self.exclusions = exclusions
    }

    /// Attempt `attempt` at a case for `seed`.
    public func generate(seed: UInt64, attempt: Int) -> DifferentialCase {
        var random = SplitMix(seed: SplitMix.subSeed(seed, UInt64(attempt)))
        let inferred = random.chance(inferredPercent)
        let pair = ModelPairGenerator(inferableOnly: inferred, exclusions: exclusions).generate(&random)
        let step: DifferentialCase.Step =
            inferred
            ? .inferred : .passes(MappingGenerator(exclusions: exclusions).generate(for: pair, random: &random))
        return DifferentialCase(
            seed: seed, attempt: attempt, source: pair.source, destination: pair.destination, step: step,
            changes: pair.changes, objectsPerEntity: random.pick([0, 1, 2, 3, 4, 5, 5, 6, 6, 7, 7, 8]),
            maximumToMany: 1 + random.next(below: 4), storeSeed: random.next(),
            batchSize: random.pick([1, 2, 3, 7, 500, 500]))
    }
}
