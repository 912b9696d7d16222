internal import Foundation
internal import MoltCore
internal import MoltMapping
internal import MoltModel
internal import MoltSQLite
internal import MoltStore

/// Chooses, once per step and before any work, how the step runs (``MigrationPlan``): in place,
/// SQL on a copy, or object by object, and for each pass how each mapping's relationships are
/// set. It reads the models, the mapping models, the policies' own statements of what they
/// override (``PolicyRegistry/hooks(of:)``, learned from their code), and, from the store, only what decides
/// a route (triggers and views, the external-data folder). It calls no policy.
///
/// The rules, each a reason the plan gives:
/// - A step of several mapping models (passes) runs every pass object by object: each pass
///   adds to what earlier ones made, as Core Data's successive `migrateStore` calls into one
///   destination do, and the SQL routes run one mapping model.
/// - In place and SQL on a copy need a mapping SQL can run exactly (``InPlacePlan``: no policy,
///   no filter, values SQLite computes from the object's own row), no attribute kept in an
///   external file, and no trigger or view in the store (they name tables that are rebuilt).
/// - Each mapping's relationships are set by the first relate strategy that takes it
///   (``RelateStrategies/ordered``: nothing to relate, in SQL, in batches, object by object),
///   followed by the next that takes it where that one may decline at run time
///   (``RelateChain``). Only object by object takes a mapping whose policy overrides
///   `createRelationships`; the others need every value in Core Data's default form.
/// - A to-one related in batches or in SQL has its foreign key written with each new row by
///   the copy pass when the engine's own work could not see the row in between
///   (``KeyAtInsert``); the keys are taken back before a policy looks at the new store,
///   and the relate pass checks them and writes the relationship itself when one does not hold.
struct MigrationPlanner {
    let store: URL
    let source: ObjectModel
    let destination: ObjectModel
    let mappings: [MappingModel]
    let resolvers: [MappingResolver]
    /// For each pass, the policy type of each entity mapping that reads source objects.
    let policyTypes: [[String: EntityMigrationPolicy.Type]]
    let options: MigrationOptions
    /// Whether the store itself may be changed (an inferred mapping); otherwise the step is
    /// heavyweight and the store is only read.
    let inPlaceAllowed: Bool
    let started: Date

    func make() throws -> (plan: MigrationPlan, work: PlannedWork) {
        let sourceLayout = try StoreLayout(model: source)
        let destinationLayout = try StoreLayout(model: destination)
        let objectReason: String
        let contents = try survey(sourceLayout)
        switch try stepRoute(sourceLayout, destinationLayout) {
        case .sql(let route, let reason, let inPlace):
            let pass = PassPlan(number: 1, mappingFile: mappings.first?.sourceFile, relate: [])
            var plan = MigrationPlan(route: route, reason: reason, passes: [pass])
            if let contents { plan.contents = forecast(contents, unknownKept: true) }
            return (plan, PlannedWork(inPlace: inPlace))
        case .objects(let reason):
            objectReason = reason
        }
        var work = PlannedWork()
        if let contents { try refuseWhatANewStoreLoses(contents) }
        work.contents = contents
        var passes: [PassPlan] = []
        for (index, mapping) in mappings.enumerated() {
            let facts = PassFacts(
                sourceLayout: sourceLayout, destinationLayout: destinationLayout, resolver: resolvers[index])
            var pass = PlannedPass()
            for entityMapping in mapping.entityMappings {
                guard let policy = policyTypes[index][entityMapping.name] else { continue }
                pass.relate[entityMapping.name] = try RelateStrategies.chain(
                    RelateFacts(mapping: entityMapping, pass: facts, policy: policy, options: options))
            }
            pass.keysAtInsert = KeyAtInsert.plan(
                mapping, chains: pass.relate, policyTypes: policyTypes[index], facts: facts, passCount: mappings.count,
                evaluatesEveryValue: options.evaluatesEveryValue)
            let relate = mapping.entityMappings.compactMap { entityMapping in
                pass.relate[entityMapping.name]?.publicPlan(
                    mapping: entityMapping.name,
                    keysAtInsert: pass.keysAtInsert[entityMapping.name]?.map(\.relationship) ?? [])
            }
            let copy = mapping.entityMappings.compactMap { entityMapping -> CopyPlan? in
                guard entityMapping.kind.readsSource, let policy = policyTypes[index][entityMapping.name] else {
                    return nil
                }
                let inOrder = CopyConcurrency.inOrderReason(
                    entityMapping, policy: policy, compiled: facts.compiled(entityMapping), jobs: options.jobs)
                return CopyPlan(
                    mapping: entityMapping.name,
                    threads: inOrder == nil ? CopyConcurrency.workers(jobs: options.jobs) : 1,
                    inOrder: inOrder)
            }
            work.passes.append(pass)
            passes.append(PassPlan(number: index + 1, mappingFile: mapping.sourceFile, relate: relate, copy: copy))
        }
        var plan = MigrationPlan(route: .objects, reason: objectReason, passes: passes)
        if let contents { plan.contents = forecast(contents, unknownKept: options.unknownContents == .keep) }
        return (plan, work)
    }

    /// The step's route, before the passes are looked at.
    private enum StepRoute {
        case sql(MigrationPlan.Route, String, InPlacePlan)
        case objects(String)
    }

    /// The in-place or SQL-on-a-copy route when the step can take it, else why not.
    private func stepRoute(_ sourceLayout: StoreLayout, _ destinationLayout: StoreLayout) throws -> StepRoute {
        func objects(_ reason: String) -> StepRoute { .objects(reason) }
        if mappings.count > 1 {
            return objects(
                "the step has \(mappings.count) passes; each adds to what earlier passes made, so every pass runs its objects"
            )
        }
        if !inPlaceAllowed, !options.allowsSQLOnCopy {
            return objects("running a mapping file as SQL is switched off")
        }
        if !inPlaceAllowed, let entity = Self.externalStorageEntity(source) ?? Self.externalStorageEntity(destination) {
            return objects("\(entity) keeps values in external files, which only the object path reads and writes")
        }
        if !inPlaceAllowed, FileOperations.exists(StoreFiles(store).support) {
            return objects("the store has a support folder of external files")
        }
        if let named = try Self.triggersAndViews(store) {
            return objects("the store has \(named), which name tables SQL would rebuild")
        }
        do {
            let plan = try InPlacePlan(
                source: sourceLayout, destination: destinationLayout, resolver: resolvers[0],
                expressions: RowExpressions(startDate: started))
            return inPlaceAllowed
                ? .sql(.inPlace, "the inferred mapping changes tables SQL rewrites in one transaction", plan)
                : .sql(
                    .sqlOnCopy,
                    "no entity mapping needs objects loaded: no policy, no filter, every value SQL computes",
                    plan)
        } catch let obstacle as InPlaceObstacle {
            return objects(obstacle.reason)
        }
    }

    /// What the store holds besides its objects (``StoreSurvey``); nil when the store is not
    /// at the source version (an upgrade's forecast of a later step).
    private func survey(_ sourceLayout: StoreLayout) throws -> StoreContents? {
        let opened = try SQLiteStore(at: store, readOnly: true)
        defer { opened.connection.close() }
        guard try opened.compatibility(with: source).isCompatible else { return nil }
        return try StoreSurvey(store: opened, layout: sourceLayout).contents()
    }

    /// What the run will keep and discard of `contents`, before it runs.
    func forecast(_ contents: StoreContents, unknownKept: Bool) -> CarriedContents {
        var account = ContentsAccount(contents: contents)
        account.unknownKept = unknownKept
        if contents.hasModelCache { account.modelCache = .forCache(of: destination) }
        return account.carried()
    }

    /// Refuses, for a run into a new store, what it would lose without being told (tables,
    /// triggers and views no model explains) or cannot carry (CloudKit mirroring, whose rows
    /// name objects by keys the run changes).
    private func refuseWhatANewStoreLoses(_ contents: StoreContents) throws {
        let location = SourceLocation(file: store.path)
        if contents.hasCloudKitMirroring {
            throw MoltError(
                .migration,
                "the store has CloudKit mirroring tables (\(contents.tables(.cloudKit).map(\.name).joined(separator: ", "))), whose rows name objects by keys a migration into a new store changes",
                location: location,
                recovery:
                    "Migrate it in place (an inferred mapping SQL can run), or let the app sync, then remove the store and have CloudKit download it again; the store was not changed."
            )
        }
        let unknown =
            contents.tables(.unknown).map { "table \($0.name) (\($0.rows ?? 0) rows)" }
            + contents.triggers.map { "trigger \($0)" } + contents.views.map { "view \($0)" }
        if !unknown.isEmpty, options.unknownContents == .refuse {
            throw MoltError(
                .migration,
                "the store holds what neither the model nor Core Data explains: \(unknown.joined(separator: ", ")); a migration into a new store would leave it behind unless told to keep or drop it (--unknown-tables keep|drop)",
                location: location,
                recovery:
                    "Say what to do with it: keep it as it is (--unknown-tables keep, MigrationOptions.unknownContents = .keep) or drop it (drop); the report names it either way. The store was not changed."
            )
        }
    }

    /// The first entity with an attribute kept in external files, if any.
    static func externalStorageEntity(_ model: ObjectModel) -> String? {
        model.entities.first { $0.attributes.contains(where: \.usesExternalStorage) }?.name
    }

    /// "trigger t, view v" when the store has triggers or views; nil when it has none.
    static func triggersAndViews(_ store: URL) throws -> String? {
        let opened = try SQLiteStore(at: store, readOnly: true)
        defer { opened.connection.close() }
        let rows = try opened.connection.rows(
            "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') ORDER BY type, name")
        guard !rows.isEmpty else { return nil }
        return rows.prefix(3).map { "\($0[0].textValue ?? "") \($0[1].textValue ?? "")" }.joined(separator: ", ")
            + (rows.count > 3 ? " and \(rows.count - 3) more" : "")
    }
}
