import ArgumentParser
import Foundation
import Molt

struct Infer: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Infer the mapping between two model versions, or say why it cannot be inferred.",
        discussion: """
            Prints the inferred mapping as a mapping file (a starting point for hand edits), or \
            every reason inference fails, each naming the entity and property and what to do. \
            Exits with 0 when the mapping is inferred and 4 when it cannot be.

            With --each-version, infers every pair of consecutive versions of a bundle (in \
            display order) and prints one line per pair.
            """)

    @OptionGroup var models: ModelPairOptions

    @Option(name: .shortAndLong, help: "Write the inferred mapping file here (an existing file only with --force).")
    var output: String?

    @Flag(help: "Replace the --output file if it exists.")
    var force = false

    @Flag(name: .customLong("each-version"), help: "Infer every pair of consecutive versions of the --from bundle.")
    var eachVersion = false

    @Flag(help: "Print the result as JSON on standard output (errors too, with their code).")
    var json = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if eachVersion, output != nil {
            throw ValidationError("--output writes one mapping; --each-version infers many and writes none")
        }
        // A bundle has no default source version (inference runs from an older version to a
        // newer one): a usage mistake, told before anything runs.
        if !eachVersion, models.fromVersion == nil,
            case .bundle(let bundle)? = try? ModelArguments.source(models.from)
        {
            throw ValidationError(
                "--from names a bundle: name the version to infer from with --from-version (versions: \(bundle.versions.map(\.name).joined(separator: ", "))), or use --each-version"
            )
        }
    }

    /// Refuses to replace an existing file (perhaps edited by hand) unless --force says so.
    private func requireWritableOutput() throws {
        guard let output, !force, FileManager.default.fileExists(atPath: output) else { return }
        throw MoltError(
            .fileWriteFileExists, "the file exists; infer does not replace a mapping file unless told to",
            location: SourceLocation(file: output),
            recovery: "Give another --output path, or --force to replace the file.")
    }

    func run() throws {
        _ = global.bootstrap()
        var impossible = false
        try global.run(json: json) {
            if eachVersion {
                impossible = try summarize()
                return
            }
            try requireWritableOutput()
            let source = try sourceModel()
            let destination = try ModelPairOptions.model(
                models.to, version: models.toVersion, side: "destination", useCurrent: true)
            let result = MappingInference.infer(from: source, to: destination)
            if json {
                var text: String?
                if case .inferred(let mapping) = result {
                    text = MappingWriter().text(of: mapping)
                    if let output { try MappingWriter().write(mapping, to: URL(fileURLWithPath: output)) }
                }
                let pair = InferenceJSON.Pair(
                    from: source.name, to: destination.name, inferred: result.mapping != nil,
                    reasons: result.reasons.map(\.description), mapping: text, file: text == nil ? nil : output)
                try Output.json(InferenceJSON(pairs: [pair]))
                impossible = !pair.inferred
                return
            }
            switch result {
            case .inferred(let mapping):
                if let output {
                    try MappingWriter().write(mapping, to: URL(fileURLWithPath: output))
                    Output.line("Wrote the inferred mapping to \(output)")
                } else {
                    FileHandle.standardOutput.write(Data(MappingWriter().text(of: mapping).utf8))
                }
            case .impossible(let reasons):
                Output.line(
                    "A mapping from \(source.name ?? "source") to \(destination.name ?? "destination") cannot be inferred:"
                )
                for reason in reasons { Output.line("  \(reason)") }
                impossible = true
            }
        }
        if impossible { throw ExitCode(ExitCodes.inferenceImpossible) }
    }

    /// The source model: the one model, or the bundle version --from-version names (a bundle
    /// has no default source version: inference runs from an older version to a newer one).
    func sourceModel() throws -> ObjectModel {
        if models.fromVersion == nil, case .bundle(let bundle) = try ModelArguments.source(models.from) {
            throw MoltError(
                .fileReadNoSuchFile,
                "--from names a bundle: name the version to infer from with --from-version (or use --each-version)",
                location: SourceLocation(file: models.from),
                recovery: "Versions: \(bundle.versions.map(\.name).joined(separator: ", ")).")
        }
        return try ModelPairOptions.model(models.from, version: models.fromVersion, side: "source", useCurrent: false)
    }

    /// One line per pair of consecutive versions; true when any pair cannot be inferred.
    func summarize() throws -> Bool {
        guard case .bundle(let bundle) = try ModelArguments.source(models.from) else {
            throw MoltError(
                .fileReadCorruptFile, "--each-version needs a .xcdatamodeld bundle",
                location: SourceLocation(file: models.from))
        }
        let versions = try bundle.allModels()
        var failures = 0
        if json {
            let pairs = zip(versions, versions.dropFirst()).map { old, new in
                let result = MappingInference.infer(from: old, to: new)
                return InferenceJSON.Pair(
                    from: old.name, to: new.name, inferred: result.mapping != nil,
                    reasons: result.reasons.map(\.description), mapping: nil, file: nil)
            }
            let report = InferenceJSON(pairs: pairs)
            try Output.json(report)
            return !report.inferred
        }
        for (old, new) in zip(versions, versions.dropFirst()) {
            switch MappingInference.infer(from: old, to: new) {
            case .inferred:
                Output.line("\(old.name ?? "?") → \(new.name ?? "?"): inferred")
            case .impossible(let reasons):
                failures += 1
                Output.line(
                    "\(old.name ?? "?") → \(new.name ?? "?"): not inferred: \(reasons.map(\.description).joined(separator: "; "))"
                )
            }
        }
        Output.line("\(versions.count - 1 - failures) of \(versions.count - 1) consecutive pairs infer")
        return failures > 0
    }
}
