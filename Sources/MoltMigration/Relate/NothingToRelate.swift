/// The relate strategy of a mapping with no relationship value whose policy keeps the default
/// `createRelationships`: Core Data's default would visit each object and set nothing, so the
/// objects are only counted.
struct NothingToRelate: RelateStrategy {
    static let kind = RelatePlan.Strategy.nothing
    static let declinesWhen: String? = nil

    static func plan(_ facts: RelateFacts, after declined: [String]) -> RelateChoice {
        if let policyRelates = facts.policyRelates { return .decline(policyRelates) }
        guard facts.compiled.relationships.isEmpty else { return .decline("it has relationship values") }
        return .take(NothingToRelate(), reason: "no relationship value")
    }

    func relate(_ job: RelateJob) -> RelateResult {
        job.tally.advance(by: job.count, in: job.mapping)
        return .done
    }
}
