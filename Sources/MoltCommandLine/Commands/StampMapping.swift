import ArgumentParser
import Foundation
import Molt

struct StampMapping: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stamp-mapping",
        abstract: "Record the models' entity version hashes in a mapping file (source-hash, destination-hash).",
        discussion: """
            Only the <entity-mapping> start tags change; comments and layout stay. Afterwards, \
            check-mapping reports an error for any entity that changed in the models. The file \
            must check without errors first. Written in place (atomically) unless -o is given.
            """)

    @Argument(help: "The mapping file (.xml).")
    var mapping: String

    @OptionGroup var models: ModelPairOptions

    @Option(name: .shortAndLong, help: "Write the stamped file here instead of replacing the mapping file.")
    var output: String?

    @Flag(help: "Print the result as JSON on standard output (errors too, with their code).")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        _ = global.bootstrap()
        try global.run(json: json) {
            let url = URL(fileURLWithPath: mapping)
            let text: String
            do {
                text = try String(contentsOf: url, encoding: .utf8)
            } catch {
                throw FileErrors.readFailed(mapping, underlying: error)
            }
            let model = try MappingReader().read(contentsOf: url)
            let (source, destination) = try models.models(for: model, file: mapping)
            let stamped = try MappingStamper().stamp(text, file: mapping, source: source, destination: destination)
            let target = output ?? mapping
            do {
                try Data(stamped.utf8).write(to: URL(fileURLWithPath: target), options: .atomic)
            } catch {
                throw MoltError(
                    .fileWriteUnknown, "cannot write: \(error.localizedDescription)",
                    location: SourceLocation(file: target))
            }
            if json {
                try Output.json(StampJSON(file: target, entityMappings: model.entityMappings.count))
            } else {
                Output.line("Stamped \(model.entityMappings.count) entity mappings in \(target)")
            }
        }
    }
}
