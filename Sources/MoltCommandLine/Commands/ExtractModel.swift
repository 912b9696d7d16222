import ArgumentParser
import Foundation
import Molt

struct ExtractModel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract-model",
        abstract: "Write a store's embedded model (Z_MODELCACHE) as an Xcode model version (.xcdatamodel).",
        discussion: """
            Core Data keeps the model a store was made with inside the store (the Z_MODELCACHE \
            table, in stores made since about 2016). This command opens the store read-only, \
            inflates and decodes that model, and writes it as a version folder holding a \
            contents file, which Xcode and every --model option read. The written model is read \
            back and its version hashes compared with the embedded model's before the command \
            succeeds; it says whether they match the store's.

            Entities and properties come out sorted by name (the store keeps no file order). \
            What the compiled model holds that Molt does not keep (validation predicates, for \
            instance; never anything that changes version hashes) is listed as notes. Exit codes: \
            66 when the store has no embedded model, 73 when the output exists, 65 when the \
            model cannot be read.
            """)

    @Argument(help: "The store file (.sqlite).")
    var store: String

    @Option(name: .shortAndLong, help: "The version folder to write (NAME.xcdatamodel); it must not exist.")
    var output: String

    @Flag(help: "Print the result as JSON on standard output (errors too, with their code).")
    var json = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard URL(fileURLWithPath: output).pathExtension == "xcdatamodel" else {
            throw ValidationError("-o must name a version folder ending in .xcdatamodel (got \(output))")
        }
    }

    func run() throws {
        let logger = global.bootstrap()
        try global.run(json: json) {
            let opened = try SQLiteStore(at: URL(fileURLWithPath: store), readOnly: true, logger: logger)
            defer { opened.connection.close() }
            guard let embedded = try opened.embeddedModel() else {
                throw MoltError(
                    .fileReadNoSuchFile, "the store has no embedded model (its Z_MODELCACHE is absent or empty)",
                    location: SourceLocation(file: store),
                    recovery:
                        "Stores made before about 2016, or by Molt, carry no model; give the model version instead.")
            }
            let folder = URL(fileURLWithPath: output)
            try XcodeModelWriter().write(embedded.model, toVersionFolder: folder)
            let written = try ModelLoader().load(at: folder)
            guard try written.entityVersionHashes() == embedded.model.entityVersionHashes() else {
                throw MoltError(
                    .fileWriteUnknown, "the written model does not read back with the embedded model's version hashes",
                    location: SourceLocation(file: folder.appendingPathComponent("contents").path))
            }
            let count = embedded.model.entities.count
            if json {
                try Output.json(
                    ExtractJSON(
                        folder: output, entities: count, matchesStore: embedded.matchesStore, notes: embedded.notes))
                return
            }
            Output.line(
                "Wrote \(output) with \(count) entit\(count == 1 ? "y" : "ies") from the model embedded in \(store).")
            Output.line(
                embedded.matchesStore
                    ? "Its version hashes match the store's, and the written model reads back with the same hashes."
                    : "Its version hashes do not match the store's (\(embedded.compatibility)); the written model reads back with the embedded model's hashes."
            )
            for note in embedded.notes { Output.note("note: \(note)") }
        }
    }
}
