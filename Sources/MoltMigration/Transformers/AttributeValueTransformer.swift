public import Foundation
public import MoltCore

/// A value transformer for Transformable attributes: Core Data's `NSValueTransformer`
/// subclass registered by name, in Swift.
///
/// A model names the transformer of a Transformable attribute (`valueTransformerName` in
/// Xcode's model editor). Core Data calls the transformer's `transformedValue(_:)` to turn the
/// app's value into the bytes it stores, and `reverseTransformedValue(_:)` to turn stored
/// bytes back into a value; Molt does the same when a policy reads or writes such an
/// attribute (``SourceObject/transformable(_:)``,
/// ``MigrationManager/setTransformable(_:of:to:)``), so a transformer ported from an app keeps
/// its method names.
///
/// An attribute that names no transformer, or one of Foundation's keyed-archive transformers
/// (`NSSecureUnarchiveFromData` and its spellings), uses the built-in
/// ``KeyedArchiveValueTransformer``. Any other name must be registered:
///
/// ```swift
/// /// Stores a list of strings as one comma-separated UTF-8 string.
/// final class CommaSeparatedTransformer: AttributeValueTransformer {
///     init() {}
///
///     func transformedValue(_ value: TransformableValue) throws -> Data {
///         guard let strings = value.stringArray else {
///             throw MoltError(.coderInvalidValue, "expected an array of strings, got \(value.className)")
///         }
///         return Data(strings.joined(separator: ",").utf8)
///     }
///
///     func reverseTransformedValue(_ data: Data) throws -> TransformableValue {
///         TransformableValue(strings: String(decoding: data, as: UTF8.self).split(separator: ",").map(String.init))
///     }
/// }
/// ```
///
/// Add the file to `Policies/` and rebuild: `molt` finds every class that conforms, as it finds
/// policies. An app that embeds Molt registers its transformers with
/// ``ValueTransformerRegistry/register(_:)``. A model may name a transformer with a Swift module
/// prefix (`App.CommaSeparatedTransformer`); the prefix is ignored when looking it up.
public protocol AttributeValueTransformer: AnyObject {
    /// The name models use (`valueTransformerName`); the type's name unless the type says
    /// otherwise.
    static var transformerName: String { get }

    init()

    /// The bytes to store for `value` (Core Data's `transformedValue:`). Throw a ``/MoltCore/MoltError``
    /// (Foundation's ``/MoltCore/MoltError/Code-swift.struct/coderInvalidValue`` fits) for a value the
    /// transformer cannot store.
    func transformedValue(_ value: TransformableValue) throws -> Data

    /// The value that stored `data` stands for (Core Data's `reverseTransformedValue:`). Throw a
    /// ``/MoltCore/MoltError`` (Foundation's ``/MoltCore/MoltError/Code-swift.struct/coderReadCorrupt`` fits) for
    /// bytes the transformer cannot read.
    func reverseTransformedValue(_ data: Data) throws -> TransformableValue
}

extension AttributeValueTransformer {
    public static var transformerName: String { String(describing: self) }
}
