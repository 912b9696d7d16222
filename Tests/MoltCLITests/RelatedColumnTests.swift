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
        #expect(
            report.relatedSummary(pass: records.pass, mapping: records.mapping)
                == "in batches (owner with each new row)")
        #expect(report.relatedSummary(pass: tags.pass, mapping: tags.mapping) == "in batches")
    }

    @Test("in SQL too: a policy's own rows can hold their keys")
    func keysWithTheRowInSQL() {
        var report = Self.report()
        report.related[0].planned = .inSQL
        report.related[0].actual = .inSQL
        let records = MigrationReport.MappingCount(mapping: "RecordToRecord", sourceObjects: 3, destinationObjects: 3)
        #expect(
            report.relatedSummary(pass: records.pass, mapping: records.mapping) == "in SQL (owner with each new row)")
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
        #expect(report.relatedSummary(pass: records.pass, mapping: records.mapping) == "object by object")
        #expect(report.relatedSummary(pass: tags.pass, mapping: tags.mapping) == "-")
        let secondPass = MigrationReport.MappingCount(
            mapping: "RecordToRecord", sourceObjects: 3, destinationObjects: 3, pass: 2)
        #expect(
            report.relatedSummary(pass: secondPass.pass, mapping: secondPass.mapping) == "-",
            "another pass's mapping of the same name")
    }

    @Test("print(report) gives the summary molt migrate prints: route, mappings with RELATED, objects, discards")
    func summary() {
        var report = Self.report()
        report.sourceModelName = "V1"
        report.duration = 1.234
        report.plan?.reason = "a policy"
        report.route = .objects
        report.mappings = [
            MigrationReport.MappingCount(mapping: "RecordToRecord", sourceObjects: 3, destinationObjects: 3),
            MigrationReport.MappingCount(mapping: "TagToTag", sourceObjects: 12, destinationObjects: 2),
        ]
        report.destinationCounts = ["Tag": 2, "Record": 3]
        report.discarded = [DiscardedData(kind: .objects(entity: "Note"), count: 4, reason: "no mapping reads them")]
        report.backup = "/tmp/Store.molt-backup.sqlite"
        #expect(
            report.summaryLines == [
                "Migrated from V1 in 1.23 s.",
                "Route: object by object (a policy).",
                "Entity mappings:",
                "  MAPPING         READ  MADE  RELATED",
                "  RecordToRecord  3     3     in batches (owner with each new row)",
                "  TagToTag        12    2     in batches",
                "Objects in the new store:",
                "  ENTITY  OBJECTS",
                "  Record  3",
                "  Tag     2",
                "Discarded (not carried):",
                "  4 Note objects: no mapping reads them",
                "The old store is kept as /tmp/Store.molt-backup.sqlite",
            ], "\(report.summaryLines)")
        #expect("\(report)" == report.summaryLines.joined(separator: "\n"))
        report.alreadyMigrated = true
        #expect("\(report)" == "The store was already at the destination version: nothing to migrate.")
    }
}
