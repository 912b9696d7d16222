import ArgumentParser
import Foundation
import Molt

struct ConvertMapping: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert-mapping",
        abstract: "Convert an Xcode mapping model (.xcmappingmodel) to a Molt mapping file.",
        discussion: """
            Reads Xcode's xcmapping.xml (entity mappings in order, types, policies, user info, \
            source fetch predicates, and the value expressions stored as archives) and writes \
            the same mapping in Molt's XML format, which can be reviewed and edited by hand. \
            Properties left to Xcode's defaults are left out: Molt infers the same values. \
            Prints the file unless -o is given (the file is then replaced atomically). Check the \
            result with check-mapping.

            molt migrate, check-mapping and upgrade read .xcmappingmodel folders directly too; \
            converting is for moving off Xcode's format.

            Example:
              molt convert-mapping Model9toModel10.xcmappingmodel -o MappingModels/Model9-to-Model10.xml
              molt check-mapping MappingModels/Model9-to-Model10.xml --from Model.xcdatamodeld --to Model.xcdatamodeld
            """)

    @Argument(help: "The Xcode mapping model: a .xcmappingmodel folder or its xcmapping.xml.")
    var mapping: String

    @Option(name: .shortAndLong, help: "Write the Molt mapping file here instead of printing it.")
    var output: String?

    @Flag(help: "Print the result as JSON on standard output (errors too, with their code).")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        _ = global.bootstrap()
        try global.run(json: json) {
            let imported = try XcodeMappingReader().readImport(
                contentsOf: URL(fileURLWithPath: mapping), displayName: mapping)
            let count = imported.mapping.entityMappings.count
            guard let output else {
                let text = MappingWriter().text(of: imported.mapping)
                if json {
                    try Output.json(
                        ConvertJSON(
                            file: nil, mapping: text, entityMappings: count, from: imported.mapping.sourceModelName,
                            to: imported.mapping.destinationModelName))
                } else {
                    FileHandle.standardOutput.write(Data(text.utf8))
                }
                return
            }
            try MappingWriter().write(imported.mapping, to: URL(fileURLWithPath: output))
            if json {
                try Output.json(
                    ConvertJSON(
                        file: output, mapping: nil, entityMappings: count, from: imported.mapping.sourceModelName,
                        to: imported.mapping.destinationModelName))
                return
            }
            let versions = [imported.mapping.sourceModelName, imported.mapping.destinationModelName]
            let between =
                versions.allSatisfy { $0 != nil } ? " (\(versions.compactMap { $0 }.joined(separator: " → ")))" : ""
            Output.line("Wrote \(count) entity mapping\(count == 1 ? "" : "s")\(between) to \(output)")
        }
    }
}
