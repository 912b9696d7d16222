public import Foundation
public import MoltMapping
internal import MoltStore

/// A Swift value that stands for an ``/MoltMapping/ExpressionValue``: what predicate arguments, substitution
/// variables and attribute values in policies may be given as, so a port of Core Data code can
/// pass `userId`, `"Ann"` or a destination object as the original passed them.
///
/// ```swift
/// ObjectPredicate(format: "userId == %@ AND name BEGINSWITH %@", userId, "A")
/// ```
public protocol ExpressionValueConvertible {
    var expressionValue: ExpressionValue { get }
}

extension ExpressionValue: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { self }
}

extension String: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .string(self) }
}

extension Substring: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .string(String(self)) }
}

extension Int: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .integer(Int64(self)) }
}

extension Int64: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .integer(self) }
}

extension Int32: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .integer(Int64(self)) }
}

extension Int16: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .integer(Int64(self)) }
}

extension Double: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .double(self) }
}

extension Float: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .double(Double(self)) }
}

extension Decimal: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .decimal(self) }
}

extension Bool: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .bool(self) }
}

extension Date: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .date(self) }
}

extension Data: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .data(self) }
}

extension UUID: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .uuid(self) }
}

extension URL: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .uri(absoluteString) }
}

extension DestinationObject: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .object(ObjectReference(.destination, id)) }
}

extension SourceObject: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .object(ObjectReference(.source, id)) }
}

/// An object ID of either store (Core Data's `NSManagedObjectID`, which knows its store), as
/// `SELF == %@` or `author == %@` compare it: `ObjectReference(.source, id)`.
extension ObjectReference: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { .object(self) }
}

extension Optional: ExpressionValueConvertible where Wrapped: ExpressionValueConvertible {
    public var expressionValue: ExpressionValue { self?.expressionValue ?? .null }
}

extension Array: ExpressionValueConvertible where Element: ExpressionValueConvertible {
    /// A collection, as `IN %@` takes one.
    public var expressionValue: ExpressionValue { .collection(map(\.expressionValue)) }
}

extension Set: ExpressionValueConvertible where Element: ExpressionValueConvertible {
    /// A collection, as `IN %@` takes one.
    public var expressionValue: ExpressionValue { .collection(map(\.expressionValue)) }
}
