import Foundation

/// What `molt verify` found for every store, as a table, as JSON and as JUnit XML.
struct VerifyReport: Encodable {
    /// The destination version.
    let destination: String
    let results: [VerifyResult]
    let seconds: Double
    let jobs: Int

    var failed: Int { results.filter { !$0.passed }.count }
    var passed: Bool { failed == 0 }

    private enum CodingKeys: String, CodingKey {
        case destination, stores, failed, passed, seconds, jobs, results
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
        lines.append("")
        lines.append(
            passed
                ? "All \(results.count) stores upgrade to \(destination) and pass (\(timing))."
                : "\(failed) of \(results.count) stores failed (\(timing)).")
        return lines
    }

    /// JUnit XML as CI systems read it: one test suite, one test case per store.
    var junit: String {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let time = String(format: "%.3f", seconds)
        xml +=
            #"<testsuites name="molt verify" tests="\#(results.count)" failures="\#(failed)" time="\#(time)">"# + "\n"
        xml +=
            #"  <testsuite name="molt verify to \#(Self.escaped(destination))" tests="\#(results.count)" failures="\#(failed)" errors="0" time="\#(time)">"#
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
                #"      <failure message="\#(Self.escaped(failure.message))" type="\#(Self.escaped(type))">\#(Self.escaped(body))</failure>"#
                + "\n"
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// Text made safe for XML content and attribute values; characters XML 1.0 cannot hold
    /// are replaced.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value): result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
