import MoltCore
import MoltModel
import MoltSQLite
import MoltStore

/// Join tables: kept, refilled or made from the link sets read before the tables change.
extension TableStepBuilder {
    mutating func joinTableStep(_ join: JoinTableLayout) throws -> InPlacePlan.TableStep {
        guard
            let set = linkSets.first(where: { set in
                if case .joinTable(let table, _, _, _, _, _) = set.forward.storage { return table == join.name }
                return false
            }),
            case .joinTable(_, let own, let other, let orderColumn, let inverseOrderColumn, _) = set.forward.storage
        else {
            throw InPlaceObstacle("no relationship is stored in the join table \(join.name)")
        }
        if set.isUnchanged, let old = source.joinTables.first(where: { $0.name == join.name }),
            old.columns == join.columns
        {
            return .keep(name: join.name, additions: [], deletedKinds: [])
        }
        let temporary = temporaryName()
        var columns = [own, other]
        var values = ["owner", "target"]
        if let orderColumn {
            columns.append(orderColumn)
            values.append("ownerPos")
        }
        if let inverseOrderColumn, !set.isSelfInverse {
            columns.append(inverseOrderColumn)
            values.append("targetPos")
        }
        return .rebuild(
            name: join.name, temporaryName: temporary,
            statements: [
                StoreLayout.createStatement(for: join, named: temporary),
                "INSERT INTO \(SQL.identifier(temporary)) (\(SQL.identifiers(columns))) SELECT \(values.joined(separator: ", ")) FROM \(SQL.identifier(set.table))",
            ])
    }
}
