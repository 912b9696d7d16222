import Foundation
import Molt

/// `molt verify --production-version V`: every version after V, up to the destination,
/// checked against CloudKit's rules and against V's schema, in Production, as `check-model
/// --production-version` checks them (versions after the destination are work in progress,
/// not what the release ships). Encoded as it is for `--json` (stable keys).
struct VerifyCloudKit: Encodable {
    /// One version after the production one, and what it breaks.
    struct Version: Encodable {
        let version: String
        let diagnostics: [CheckJSON.Item]
        /// The errors, for the text and JUnit reports.
        let errors: [Diagnostic]

        private enum CodingKeys: String, CodingKey { case version, diagnostics }
    }

    let productionVersion: String
    let versions: [Version]

    var errors: Int { versions.map(\.errors.count).reduce(0, +) }
    var passed: Bool { errors == 0 }

    /// Checks the versions of `upgrade` after `productionVersion` up to `destination`, in the
    /// versions' order (names with numbers read as numbers, as `check-model` orders a
    /// bundle's versions).
    init(_ upgrade: UpgradeVersions, productionVersion: String, destination: String, models path: String) throws {
        let models = upgrade.schemas.flatMap(\.models).sorted {
            ($0.name ?? "").compare($1.name ?? "", options: [.numeric]) == .orderedAscending
        }
        let (production, after) = try ProductionSchemaCheck.split(models, at: productionVersion, file: path)
        var later = after
        if let end = later.firstIndex(where: { $0.name == destination }) {
            later = Array(later[...end])
        } else if models.contains(where: { $0.name == destination }) {
            later = []  // the destination is the production version or comes before it
        }
        let check = ProductionSchemaCheck(production: production)
        self.productionVersion = productionVersion
        versions = later.map { model in
            let found = CloudKitRules().check(model) + check.check(model)
            return Version(
                version: model.name ?? "?", diagnostics: found.map(CheckJSON.Item.init), errors: found.errors)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case productionVersion, checkedVersions, errors, passed, versions
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(productionVersion, forKey: .productionVersion)
        try container.encode(versions.map(\.version), forKey: .checkedVersions)
        try container.encode(errors, forKey: .errors)
        try container.encode(passed, forKey: .passed)
        try container.encode(versions, forKey: .versions)
    }

    /// "Model 2, Model 3 against the production schema Model".
    var title: String {
        let later = versions.isEmpty ? "no version after it" : versions.map(\.version).joined(separator: ", ")
        return "\(later) against the production schema \(productionVersion)"
    }

    /// The text report: a line, then each error with its hint.
    var lines: [String] {
        guard !passed else {
            return ["CloudKit: \(title): only additions, and CloudKit's rules kept."]
        }
        var lines = ["CloudKit: \(title): \(errors) error\(errors == 1 ? "" : "s")"]
        for version in versions {
            for error in version.errors {
                lines.append("  \(error.description)")
                if let hint = error.hint { lines.append("      hint: \(hint)") }
            }
        }
        return lines
    }

    /// JUnit test cases: one failing case per error, or one passing case when there is none.
    var junitCases: [String] {
        guard !passed else {
            return [
                #"    <testcase classname="molt.verify.cloudkit" name="\#(VerifyReport.escaped(title))" time="0"/>"#
            ]
        }
        var cases: [String] = []
        for version in versions {
            for error in version.errors {
                let subject = [error.entity, error.property].compactMap { $0 }.joined(separator: ".")
                let name = "\(version.version): \(subject.isEmpty ? "model" : subject): \(error.rule ?? "error")"
                let body = [error.description, error.hint.map { "hint: \($0)" }].compactMap { $0 }.joined(
                    separator: "\n")
                cases.append(
                    #"    <testcase classname="molt.verify.cloudkit" name="\#(VerifyReport.escaped(name))" time="0">"#
                        + "\n"
                        + #"      <failure message="\#(VerifyReport.escaped(error.message))" type="\#(VerifyReport.escaped(error.rule ?? "error"))">\#(VerifyReport.escaped(body, attribute: false))</failure>"#
                        + "\n    </testcase>")
            }
        }
        return cases
    }

    /// The number of JUnit test cases, and of failing ones.
    var junitCounts: (tests: Int, failures: Int) {
        passed ? (1, 0) : (errors, errors)
    }
}
