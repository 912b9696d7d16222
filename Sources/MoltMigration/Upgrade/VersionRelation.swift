/// Where two schemas stand in the known version order.
enum Position: Equatable {
    case same
    case before
    case after
    /// The order says nothing about the pair.
    case unknown
    /// Each comes before the other (mapping files that go there and back).
    case cyclic
}

/// The known order of schemas (indices into `UpgradeVersions.schemas`): a rank for each in a
/// total order (explicit or by name), or, from mapping files and stages alone, "a before b"
/// when a chain of files (source before destination) leads from a to b.
struct VersionRelation {
    private let ranks: [Int]?
    /// `reach[a][b]`: b can be reached from a by one or more edges.
    private let reach: [[Bool]]

    var isTotal: Bool { ranks != nil }

    /// A total order from ranks.
    init(ranks: [Int]) {
        self.ranks = ranks
        reach = []
    }

    /// The partial order of `edges` (from, to), closed transitively.
    init(count: Int, edges: [(Int, Int)]) {
        ranks = nil
        var reach = Array(repeating: Array(repeating: false, count: count), count: count)
        for (from, to) in edges where from != to { reach[from][to] = true }
        for middle in 0..<count {
            for from in 0..<count where reach[from][middle] {
                for to in 0..<count where reach[middle][to] { reach[from][to] = true }
            }
        }
        self.reach = reach
    }

    /// Where `a` stands relative to `b`.
    func position(_ a: Int, _ b: Int) -> Position {
        if a == b { return .same }
        if let ranks { return ranks[a] < ranks[b] ? .before : .after }
        switch (reach[a][b], reach[b][a]) {
        case (true, true): return .cyclic
        case (true, false): return .before
        case (false, true): return .after
        case (false, false): return .unknown
        }
    }

    /// The schemas strictly between `a` and `b` in a total order, in order; empty otherwise.
    func between(_ a: Int, _ b: Int) -> [Int] {
        guard let ranks else { return [] }
        return ranks.indices.filter { ranks[$0] > ranks[a] && ranks[$0] < ranks[b] }.sorted { ranks[$0] < ranks[$1] }
    }
}
