public import Foundation
internal import Molt

/// Writes a diverging case to a folder, to look at and reproduce: `Model.xcdatamodeld` with
/// both versions (V1 and V2, the current), the mapping files (`pass1.xml`…; for an inferred
/// step `inferred.xml`, the mapping inference gives, for reading only), the store before
/// migration (`Store.sqlite`), each route's result (`dumps/<route>.json`), and `README.txt`
/// (the seed, the routes that differ, the first difference, the command lines).
public struct CaseWriter: Sendable {
    /// The folder cases are written in: `$MOLT_DIFFERENTIAL_OUT`, else
    /// `.build/differential-failures` in the package.
    public var folder: URL

    /// A writer into `folder` (by default ``defaultFolder``).
    public init(folder: URL = CaseWriter.defaultFolder) {
        self.folder = folder
    }

    /// `$MOLT_DIFFERENTIAL_OUT`, else `.build/differential-failures` in the package.
    public static var defaultFolder: URL {
        if let path = ProcessInfo.processInfo.environment["MOLT_DIFFERENTIAL_OUT"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return Fixtures.packageRoot.appendingPathComponent(".build/differential-failures")
    }

    /// Writes `result`'s case (`shrunk` or as generated) to `seed-<S>/`, replacing what was
    /// there, and gives the folder.
    @discardableResult
    public func write(
        _ result: DifferentialRunner.CaseResult, runner: DifferentialRunner, shrunk: Bool = true
    ) throws -> URL {
        let c = result.differentialCase
        let target = folder.appendingPathComponent("seed-\(c.seed)")
        let manager = FileManager.default
        try? manager.removeItem(at: target)
        try manager.createDirectory(at: target, withIntermediateDirectories: true)
        let scratch = TemporaryDirectory("molt-differential-write")
        let bundle = try ModelXML.writeBundle(
            "Model", versions: [(c.source.name, c.source.body), (c.destination.name, c.destination.body)],
            current: c.destination.name, in: scratch)
        try manager.copyItem(at: bundle, to: target.appendingPathComponent("Model.xcdatamodeld"))
        var mappingFiles: [String] = []
        switch c.step {
        case .passes(let files):
            for (index, file) in files.enumerated() {
                let name = "pass\(index + 1).xml"
                try Data(file.text(source: c.source.name, destination: c.destination.name).utf8)
                    .write(to: target.appendingPathComponent(name))
                mappingFiles.append(name)
            }
        case .inferred:
            let (source, destination) = try c.models()
            if let mapping = try c.mappingModels(source: source, destination: destination).first {
                try Data(MappingWriter().text(of: mapping).utf8).write(
                    to: target.appendingPathComponent("inferred.xml"))
            }
        }
        try runner.createStore(c, at: target.appendingPathComponent("Store.sqlite"))
        let dumps = target.appendingPathComponent("dumps")
        try manager.createDirectory(at: dumps, withIntermediateDirectories: true)
        for route in result.routes {
            let outcome = route.outcome
            let head = outcome.succeeded ? "" : "// failed: \(outcome.error ?? ""); the store as the run left it:\n"
            try Data((head + outcome.dump).utf8).write(
                to: dumps.appendingPathComponent("\(route.outcome.route.slug).json"))
        }
        let text = readme(result, mappingFiles: mappingFiles, shrunk: shrunk)
        try Data(text.utf8).write(to: target.appendingPathComponent("README.txt"))
        return target
    }

    /// The README of a written case.
    func readme(_ result: DifferentialRunner.CaseResult, mappingFiles: [String], shrunk: Bool) -> String {
        let c = result.differentialCase
        let usesPolicies = c.files.contains { $0.entityMappings.contains { $0.policy != nil } }
        var lines = [
            "Differential test case, seed \(c.seed) (\(shrunk ? "shrunk" : "as generated, not shrunk"))",
            "",
            c.summary,
            "",
            "Routes that differ from the reference (object by object):",
        ]
        for route in result.diverging {
            lines.append("  \(route.outcome.route.rawValue) [\(route.kind ?? "")]:")
            lines += (route.difference ?? "").split(separator: "\n", omittingEmptySubsequences: false).map {
                "    \($0)"
            }
        }
        lines += ["", "Every route:"]
        for route in result.routes {
            let outcome = route.outcome
            let what: String
            if let report = outcome.report {
                var flags: [String] = []
                if report.route == .sqlOnCopy { flags.append("SQL on a copy") }
                if report.inPlace { flags.append("in place") }
                if !report.relatedInSQL.isEmpty { flags.append("related in SQL: \(report.relatedInSQL)") }
                if !report.relatedInBatches.isEmpty { flags.append("in batches: \(report.relatedInBatches)") }
                if !report.keysWrittenAtInsert.isEmpty {
                    flags.append("keys written at insert: \(report.keysWrittenAtInsert)")
                }
                what = "succeeded" + (flags.isEmpty ? "" : " (\(flags.joined(separator: "; ")))")
            } else {
                what = "failed: \(outcome.errorCode ?? "?"): \(outcome.error ?? "")"
            }
            lines.append("  \(outcome.route.rawValue): \(what)")
            if let plan = outcome.report?.plan {
                lines += plan.description.split(separator: "\n").map { "      \($0)" }
            }
        }
        let mappingOptions = mappingFiles.map { " --mapping \($0)" }.joined()
        lines += [
            "",
            "Files: Model.xcdatamodeld (versions V1 and V2), Store.sqlite (the V1 store before migration), "
                + "dumps/ (each route's result as `molt dump --json` writes it)"
                + (mappingFiles.isEmpty
                    ? ", inferred.xml (the inferred mapping, for reading)"
                    : ", "
                        + mappingFiles.joined(separator: ", ") + " (the passes, in order)"),
            "",
            "Reproduce the engine's own route (every switch on) from this folder, on a copy:",
            "  cp Store.sqlite /tmp/Store.sqlite",
            "  swift run --package-path \(Fixtures.packageRoot.path) molt migrate /tmp/Store.sqlite "
                + "--from Model.xcdatamodeld --from-version V1 --to Model.xcdatamodeld --to-version V2"
                + mappingOptions,
            "  (add --plan to see the route and each mapping's relate strategy without migrating)",
            "  swift run --package-path \(Fixtures.packageRoot.path) molt dump /tmp/Store.sqlite "
                + "--model Model.xcdatamodeld",
        ]
        if usesPolicies {
            lines.append(
                "  (the mapping names test policies of Tests/MoltTestSupport/Differential, which `molt` does "
                    + "not have: use the test below)")
        }
        lines += [
            "The routes one by one (MigrationOptions switches) are run by the test; regenerate and shrink "
                + "this case with:",
            "  Scripts/differential-test.sh --seed \(c.seed) --cases 1",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
