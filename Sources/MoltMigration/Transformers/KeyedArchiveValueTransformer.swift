public import Foundation
public import MoltCore

/// The built-in transformer: Foundation's keyed-archive transformers (`NSSecureUnarchiveFromData`,
/// `NSKeyedUnarchiveFromData`), used by every Transformable attribute that names no
/// transformer or one of ``aliases``.
///
/// Stored bytes are an `NSKeyedArchiver` archive of Foundation property-list objects, read
/// with ``/MoltCore/TransformableValueDecoder`` and written with ``/MoltCore/TransformableValueEncoder``: what
/// Core Data stores for a Swift `[String]`, `[Int64]` or `[String: Any]` attribute. Binary
/// archives (what Core Data writes) and XML ones are read; binary ones are written.
///
/// ```swift
/// let transformer = KeyedArchiveValueTransformer()
/// let bytes = try transformer.transformedValue(["a", "b"])   // what Core Data would store
/// let tags = try transformer.reverseTransformedValue(bytes)   // ["a", "b"]
/// ```
public final class KeyedArchiveValueTransformer: AttributeValueTransformer {
    public static var transformerName: String { "NSSecureUnarchiveFromData" }

    /// Every name a model may use for this transformer: `NSValueTransformerName`'s values
    /// (`NSSecureUnarchiveFromData`, Xcode's default for new attributes, and the older
    /// `NSKeyedUnarchiveFromData`), the class `NSSecureUnarchiveFromDataTransformer`, and the
    /// Objective-C constants' names, which people type in by mistake.
    public static let aliases: [String] = [
        "NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer", "NSSecureUnarchiveFromDataTransformerName",
        "NSKeyedUnarchiveFromData", "NSKeyedUnarchiveFromDataTransformerName",
    ]

    /// Whether values are written with mutable classes (`NSMutableArray`…): set for an
    /// attribute whose custom class is a mutable Foundation class, so that the app gets the
    /// class it declared.
    public var usesMutableClasses = false
    /// The decoder's limits.
    public var decoder = TransformableValueDecoder()

    public init() {}

    public func transformedValue(_ value: TransformableValue) throws -> Data {
        TransformableValueEncoder(usesMutableClasses: usesMutableClasses).encode(value)
    }

    public func reverseTransformedValue(_ data: Data) throws -> TransformableValue {
        if !BinaryPropertyListReader.isBinaryPropertyList(data), let archive = try XMLKeyedArchive.read(data) {
            return try decoder.decode(archive)
        }
        return try decoder.decode(data)
    }
}
