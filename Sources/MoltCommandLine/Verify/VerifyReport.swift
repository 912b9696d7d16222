import Foundation
import Molt
import MoltXML

/// What `molt verify` found for every store (and, with `--production-version`, for the
/// CloudKit schema), as a table, as JSON and as JUnit XML.
struct VerifyReport: Encodable {
    /// The destination version.
    let destination: String
    let results: [VerificationResult]
    let seconds: Double
    let jobs: Int
    /// The versions after `--production-version` checked for CloudKit, when asked.
    var cloudKit: VerifyCloudKit? = nil

    /// The stores that failed.
    var failed: Int { results.filter { !$0.passed }.count }
    var passed: Bool { failed == 0 && cloudKit?.passed != false }

    private enum CodingKeys: String, CodingKey {
        case destination, stores, failed, passed, seconds, jobs, results, cloudKit
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(destination, forKey: .destination)
        try container.encode(results.count, forKey: .stores)
        try container.encode(failed, forKey: .failed)
        try container.encode(passed, forKey: .passed)
        try container.encode((seconds * 1000).rounded() / 1000, forKey: .seconds)
        try container.encode(jobs, forKey: .jobs)
        try container.encode(results, forKey: .results)
        try container.encodeIfPresent(cloudKit, forKey: .cloudKit)
    }

    private var timing: String {
        "\(String(format: "%.2f", seconds)) s, \(jobs) job\(jobs == 1 ? "" : "s")"
    }

    /// The table and each failure in detail.
    var lines: [String] {
        var lines = Output.table(
            [["STORE", "FROM", "TO", "STEPS", "DUMP", "SECONDS", "RESULT"]]
                + results.map { result in
                    [
                        result.name, result.from ?? "?", result.to ?? "–", String(result.steps),
                        result.comparedDump ? "compared" : "–", String(format: "%.2f", result.seconds),
                        result.failure.map { "FAILED (\($0.kind.rawValue))" } ?? "ok",
                    ]
                }, indent: "")
        for result in results {
            guard let failure = result.failure else { continue }
            lines.append("")
            lines.append("\(result.name): \(failure.message)")
            if let difference = failure.difference {
                lines += difference.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }
            }
        }
        if let cloudKit {
            lines.append("")
            lines += cloudKit.lines
        }
        lines.append("")
        let stores =
            failed == 0
            ? (results.count == 1
                ? "The store upgrades to \(destination) and passes (\(timing))."
                : "All \(results.count) stores upgrade to \(destination) and pass (\(timing)).")
            : "\(failed) of \(results.count) stores failed (\(timing))."
        if let cloudKit, !cloudKit.passed {
            lines.append(
                stores
                    + " The CloudKit schema check failed: \(cloudKit.errors) error\(cloudKit.errors == 1 ? "" : "s").")
        } else {
            lines.append(stores)
        }
        return lines
    }

    /// JUnit XML as CI systems read it: one test suite, one test case per store, and with
    /// `--production-version` one per CloudKit error (or one passing case).
    var junit: String {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let time = String(format: "%.3f", seconds)
        let tests = results.count + (cloudKit?.junitCounts.tests ?? 0)
        let failures = failed + (cloudKit?.junitCounts.failures ?? 0)
        xml +=
            #"<testsuites name="molt verify" tests="\#(tests)" failures="\#(failures)" time="\#(time)">"# + "\n"
        xml +=
            #"  <testsuite name="molt verify to \#(Self.escaped(destination))" tests="\#(tests)" failures="\#(failures)" errors="0" time="\#(time)">"#
            + "\n"
        for result in results {
            let name = Self.escaped(result.name)
            let caseTime = String(format: "%.3f", result.seconds)
            let opening = #"    <testcase classname="molt.verify" name="\#(name)" time="\#(caseTime)""#
            guard let failure = result.failure else {
                xml += opening + "/>\n"
                continue
            }
            let type = failure.code.map { "\(failure.kind.rawValue) \($0)" } ?? failure.kind.rawValue
            let body = [failure.message, failure.difference].compactMap { $0 }.joined(separator: "\n")
            xml += opening + ">\n"
            xml +=
                #"      <failure message="\#(Self.escaped(failure.message))" type="\#(Self.escaped(type))">\#(Self.escaped(body, attribute: false))</failure>"#
                + "\n"
            xml += "    </testcase>\n"
        }
        for testCase in cloudKit?.junitCases ?? [] { xml += testCase + "\n" }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// Text for an attribute value (`attribute`) or element content, escaped by Molt's XML
    /// writer; characters XML 1.0 cannot hold at all are replaced.
    static func escaped(_ text: String, attribute: Bool = true) -> String {
        var writable = ""
        for scalar in text.unicodeScalars {
            let unwritable = XMLEscaping.firstUnwritable(in: String(Character(scalar))) != nil
            writable.unicodeScalars.append(unwritable ? "\u{FFFD}" : scalar)
        }
        return XMLEscaping.escaped(writable, quote: attribute ? "\"" : nil)
    }
}
