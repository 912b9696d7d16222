import Testing

@testable import MoltCommandLine
@testable import MoltMigration

/// The RELATED column of `molt migrate`'s mapping table: how each mapping was related, with
/// the to-ones whose keys went in with each new row.
@Suite("The RELATED column")
struct RelatedColumnTests {
    static func report() -> MigrationReport {
        var report = MigrationReport()
        var plan = MigrationPlan(
            route: .objects, reason: "",
            passes: [
                PassPlan(
                    number: 1, mappingFile: nil,
                    relate: [
                        RelatePlan(mapping: "RecordToRecord", strategy: .batched, reason: ""),
                        RelatePlan(mapping: "TagToTag", strategy: .batched, reason: ""),
                    ])
            ])
        plan.passes[0].relate[0].foreignKeysAtInsert = ["owner"]
        report.plan = plan
        report.relatedInBatches = ["RecordToRecord", "TagToTag"]
        report.linksWrittenAtInsert = ["RecordToRecord.owner"]
        return report
    }

    @Test("a mapping whose to-one keys went in with the row says so; the others do not")
    func keysWithTheRow() {
        let report = Self.report()
        let records = MigrationReport.MappingCount(mapping: "RecordToRecord", sourceObjects: 3, destinationObjects: 3)
        let tags = MigrationReport.MappingCount(mapping: "TagToTag", sourceObjects: 2, destinationObjects: 2)
        #expect(Migrate.related(records, report: report) == "in batches (owner with each new row)")
        #expect(Migrate.related(tags, report: report) == "in batches")
    }

    @Test("in SQL too: a policy's own rows can hold their keys")
    func keysWithTheRowInSQL() {
        var report = Self.report()
        report.relatedInBatches = ["TagToTag"]
        report.relatedInSQL = ["RecordToRecord"]
        let records = MigrationReport.MappingCount(mapping: "RecordToRecord", sourceObjects: 3, destinationObjects: 3)
        #expect(Migrate.related(records, report: report) == "in SQL (owner with each new row)")
    }
}
