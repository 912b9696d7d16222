import Foundation
import MoltCore
import MoltMapping
import MoltModel
import MoltTestSupport

enum MappingText {
    /// A mapping file around `body` (entity mappings), Blog → Blog 2 by default.
    static func document(_ body: String, source: String = "Blog", destination: String = "Blog 2") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <mapping-model format="1" source-model="\(source)" destination-model="\(destination)">
        \(body)
        </mapping-model>
        """
    }

    static func read(_ text: String) -> (MappingModel?, [Diagnostic]) {
        MappingReader().read(Data(text.utf8), file: "mapping.xml")
    }

    /// Reads and checks `body` against Blog → Blog 2; returns every diagnostic.
    static func check(_ body: String, knownPolicies: Set<String>? = nil) throws -> [Diagnostic] {
        let (model, problems) = read(document(body))
        guard let model else { return problems }
        return problems
            + MappingChecker(knownPolicies: knownPolicies).check(
                model, source: try Examples.model("Blog"), destination: try Examples.model("Blog 2"))
    }

    static let examplePath = Fixtures.package("MappingModels/Blog/Blog-to-Blog2.xml")
}
