internal import MoltMapping
internal import MoltStore

/// What a run's queries (`Queries/`: fetches, counts, the source and destination contexts) keep
/// between calls: parsed predicates by format, and compiled statements for each store. The
/// manager owns it for the run; the queries use it.
final class QueryState {
    var predicates: [String: MappingExpression] = [:]
    let sourceStatements = StatementCache()
    let destinationStatements = StatementCache()
}
