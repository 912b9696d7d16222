internal import MoltCore
internal import MoltMapping
internal import MoltStore

/// Running fetch requests on either store: the predicate parsed (once per format), the query
/// built and run with a resolver that reads the store as it is now.
extension PassState {
    /// The query a fetch request stands for.
    func query(for request: FetchRequest, on side: ObjectReference.Store) throws -> ObjectQuery {
        let store = side == .source ? source : destination
        guard store.layout.entity(named: request.entityName) != nil else {
            let known = store.layout.entities.map(\.name).sorted().joined(separator: ", ")
            throw MoltError(
                .migration,
                "the \(side == .source ? "source" : "destination") model has no entity called \"\(request.entityName)\" to fetch",
                recovery: "Its entities: \(known).")
        }
        guard request.fetchLimit >= 0, request.fetchOffset >= 0 else {
            throw MoltError(
                .migration, "a fetch limit and offset cannot be negative", entity: request.entityName)
        }
        var query = ObjectQuery(
            entity: request.entityName,
            sortKeys: request.sortDescriptors.map { ($0.key, $0.ascending) }, limit: request.fetchLimit,
            offset: request.fetchOffset, includingSubentities: request.includesSubentities, now: startDate)
        if let predicate = request.predicate {
            if let name = predicate.conflictingVariables.sorted().first {
                throw MoltError(
                    .migration, "the compound predicate \"\(predicate.format)\" gives $\(name) two different values",
                    entity: request.entityName,
                    recovery:
                        "Give each subpredicate's variable its own name, or set it once on the compound predicate.")
            }
            let parsed = try parsedPredicate(predicate, entity: request.entityName)
            query.predicate = parsed.expression
            query.variables = predicate.substitutionVariables.merging(parsed.variables) { _, argument in argument }
        }
        return query
    }

    /// A resolver that reads both stores as they are now (nothing kept from before).
    func freshResolver() -> StoreObjectResolver {
        StoreObjectResolver(source: source, destination: destination)
    }

    private func parsedPredicate(
        _ predicate: ObjectPredicate, entity: String
    ) throws -> (expression: MappingExpression, variables: [String: ExpressionValue]) {
        // A format without %K parses to the same expression whatever its values: parse it once.
        let cacheable = !predicate.format.contains("%K")
        let key = "\(predicate.arguments.count)|\(predicate.format)"
        if cacheable, let expression = queryState.predicates[key] {
            return (expression, ExpressionParser.formatVariables(predicate.arguments))
        }
        do {
            let parsed = try ExpressionParser().parse(format: predicate.format, arguments: predicate.arguments)
            if cacheable {
                if queryState.predicates.count >= 256 { queryState.predicates.removeAll() }
                queryState.predicates[key] = parsed.expression
            }
            return parsed
        } catch {
            throw MoltError(
                .migration, "the predicate \"\(predicate.format)\" is not valid: \(error)", entity: entity)
        }
    }
}
