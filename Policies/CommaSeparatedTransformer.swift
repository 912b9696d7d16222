import Foundation
import Molt

/// Stores a list of strings as one comma-separated UTF-8 string (`"swift,core data"`), for
/// Transformable attributes whose model names `CommaSeparatedTransformer`: an example of a
/// value transformer an app registers by name, ported to Molt.
///
/// Reading bytes gives an array of strings (empty bytes, an empty array); storing accepts an
/// array of strings none of which holds a comma.
final class CommaSeparatedTransformer: AttributeValueTransformer {
    init() {}

    func transformedValue(_ value: TransformableValue) throws -> Data {
        guard let strings = value.stringArray else {
            throw MoltError(
                .coderInvalidValue, "CommaSeparatedTransformer stores arrays of strings, not an \(value.className)")
        }
        if let text = strings.first(where: { $0.contains(",") }) {
            throw MoltError(
                .coderInvalidValue, "CommaSeparatedTransformer cannot store \"\(text)\", which holds a comma")
        }
        return Data(strings.joined(separator: ",").utf8)
    }

    func reverseTransformedValue(_ data: Data) throws -> TransformableValue {
        guard let text = String(data: data, encoding: .utf8) else {
            throw MoltError(.coderReadCorrupt, "CommaSeparatedTransformer reads UTF-8 text, and these bytes are not")
        }
        return TransformableValue(strings: text.isEmpty ? [] : text.components(separatedBy: ","))
    }
}
