import Foundation
import MoltXML

/// The XML Schema every mapping file must follow (`MappingModels/mapping.xsd`, compiled into
/// Molt).
enum MappingSchema {
    static let schema = XMLSchema(data: Data(PackageResources.mapping_xsd), name: "mapping.xsd")

    /// The schema's text, for tools that want to show or save it.
    static var text: String { String(decoding: PackageResources.mapping_xsd, as: UTF8.self) }
}
