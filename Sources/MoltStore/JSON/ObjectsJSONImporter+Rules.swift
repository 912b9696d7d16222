internal import MoltCore

/// A seed's objects checked against their model's rules once they are all inserted.
extension ImportRun {
    /// Runs the validate pass's checks (``StoreValidation``) over the objects just inserted and
    /// throws the first failure in file order, naming the seed's line, the object's `@id`, the
    /// property and the rule; every failure is listed in the error's details.
    mutating func checkRules() throws {
        var validation = StoreValidation(connection: writer.connection, layout: writer.layout, batchSize: 500)
        // The validation counts the objects of each entity checked, as the insert pass did.
        let total = objects.count
        var ticker = self.ticker
        try ticker.tick(.check, 0, total)
        try validation.checkObjects(
            checkCancelled: { try ticker.checkCancelled?() },
            progress: { _, done in ticker.report(.check, done, total) })
        try ticker.tick(.check, total, total)
        self.ticker = ticker
        guard validation.failureCount > 0 else { return }
        var indexByID: [ObjectID: Int] = [:]
        for (index, object) in objects.enumerated() {
            if let id = object.id { indexByID[id] = index }
        }
        let described = validation.failures.map { describe($0, indexByID: indexByID) }
            .sorted { ($0.index ?? Int.max, $0.line) < ($1.index ?? Int.max, $1.line) }
        let first = described[0]
        let others = validation.failureCount - 1
        let more =
            others == 0
            ? ""
            : " (and \(others) more problem\(others == 1 ? "" : "s"), listed in the details; molt shows them with --verbose)"
        throw MoltError(
            first.failure.code, first.message + more, location: SourceLocation(file: file, line: first.line),
            entity: first.failure.object.entity, property: first.failure.property,
            recovery:
                "Fix the seed so its objects keep the model's rules; a store made from it would fail the validation at the end of every migration.",
            details: described.map { "line \($0.line): \($0.failure.object.entity): \($0.message)" })
    }

    private struct DescribedFailure {
        let failure: StoreValidation.Failure
        /// The seed object blamed, by its place in the file.
        let index: Int?
        let line: Int
        let message: String
    }

    /// The failure told in the seed's terms: the object's `@id` (or line) instead of its key.
    /// A uniqueness conflict blames the later object in the file and names the earlier ones.
    private func describe(_ failure: StoreValidation.Failure, indexByID: [ObjectID: Int]) -> DescribedFailure {
        if !failure.sharing.isEmpty {
            let sharing = failure.sharing.compactMap { indexByID[$0] }.sorted()
            if let blamed = sharing.dropFirst().first {
                let earlier = sharing.prefix { $0 < blamed }.map { index in
                    let object = objects[index]
                    return name(of: object, index: index) + (object.localID == nil ? "" : " (line \(object.line))")
                }
                let constraint = failure.property ?? ""
                return DescribedFailure(
                    failure: failure, index: blamed, line: objects[blamed].line,
                    message:
                        "\(name(of: objects[blamed], index: blamed)) has the same value\(constraint.contains(",") ? "s" : "") of the uniqueness constraint (\(constraint)) as \(earlier.joined(separator: ", "))\(sharing.count > 2 ? " and \(sharing.count - 2) more" : ""); the constraint allows one object per value (\(failure.code.rawValue))"
                )
            }
        }
        guard let index = indexByID[failure.object] else {
            return DescribedFailure(
                failure: failure, index: nil, line: 1, message: "\(failure.object): \(failure.message)")
        }
        let object = objects[index]
        let line = failure.property.flatMap { object.members[$0]?.line } ?? object.line
        let property = failure.property.map { " \($0)" } ?? ""
        return DescribedFailure(
            failure: failure, index: index, line: line,
            message: "\(name(of: object, index: index)):\(property) \(failure.message) (\(failure.code.rawValue))")
    }
}
