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
                        RelatePlan(mapping: "RecordToRecord", strategy: .inBatches, reason: ""),
                        RelatePlan(mapping: "TagToTag", strategy: .inBatches, reason: ""),
                    ])
            ])
        plan.passes[0].relate[0].keysAtInsert = ["owner"]
        report.plan = plan
        report.related = [
            RelateOutcome(
                pass: 1, mapping: "RecordToRecord", planned: .inBatches, actual: .inBatches, keysAtInsert: ["owner"]),
            RelateOutcome(pass: 1, mapping: "TagToTag", planned: .inBatches, actual: .inBatches),
        ]
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
        report.related[0].planned = .inSQL
        report.related[0].actual = .inSQL
        let records = MigrationReport.MappingCount(mapping: "RecordToRecord", sourceObjects: 3, destinationObjects: 3)
        #expect(Migrate.related(records, report: report) == "in SQL (owner with each new row)")
    }

    @Test("a mapping planned in SQL that fell back says how it was related; one with nothing to set says -")
    func fellBack() {
        var report = Self.report()
        report.related[0] = RelateOutcome(
            pass: 1, mapping: "RecordToRecord", planned: .inSQL, actual: .objectByObject,
            fallbackReason: "a policy deleted source objects", keysAtInsert: ["owner"])
        report.related[1] = RelateOutcome(pass: 1, mapping: "TagToTag", planned: .nothing, actual: .nothing)
        let records = MigrationReport.MappingCount(mapping: "RecordToRecord", sourceObjects: 3, destinationObjects: 3)
        let tags = MigrationReport.MappingCount(mapping: "TagToTag", sourceObjects: 2, destinationObjects: 2)
        #expect(Migrate.related(records, report: report) == "object by object")
        #expect(Migrate.related(tags, report: report) == "-")
        let secondPass = MigrationReport.MappingCount(
            mapping: "RecordToRecord", sourceObjects: 3, destinationObjects: 3, pass: 2)
        #expect(Migrate.related(secondPass, report: report) == "-", "another pass's mapping of the same name")
    }
}
