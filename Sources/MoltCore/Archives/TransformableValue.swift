public import Foundation

/// A value of a Transformable attribute: the Foundation property-list object an app archived,
/// as a Swift value.
///
/// Core Data stores a Transformable attribute as the bytes its value transformer makes; by
/// default (`NSSecureUnarchiveFromData`) that is an `NSKeyedArchiver` archive of Foundation
/// objects. Molt never instantiates archived classes: it reads such an archive into this value
/// (``TransformableValueDecoder``) and writes one back (``TransformableValueEncoder``), so a
/// migration policy can read, change and store what an app kept there.
///
/// | case | archived as |
/// |---|---|
/// | ``null`` | `NSNull` |
/// | ``string(_:)`` | `NSString`, `NSMutableString` |
/// | ``integer(_:)``, ``double(_:)``, ``bool(_:)`` | `NSNumber` (a plist integer, real or boolean) |
/// | ``decimal(_:)`` | `NSDecimalNumber` |
/// | ``date(_:)`` | `NSDate` |
/// | ``data(_:)`` | `NSData`, `NSMutableData` |
/// | ``url(_:)`` | `NSURL` |
/// | ``uuid(_:)`` | `NSUUID` |
/// | ``array(_:)`` | `NSArray`, `NSMutableArray` |
/// | ``set(_:)`` | `NSSet`, `NSMutableSet` |
/// | ``dictionary(_:)`` | `NSDictionary`, `NSMutableDictionary` (keys of any case) |
///
/// Mutable and immutable classes read as the same case, and two values are equal when
/// Foundation would find them equal (sets and dictionaries regardless of order), except that
/// numbers of different kinds (`1`, `1.0`, `true`) are different cases here.
///
/// ```swift
/// let tags: TransformableValue = ["swift", "core data"]      // an NSArray of NSStrings
/// let bytes = TransformableValueEncoder().encode(tags)      // what NSKeyedArchiver writes
/// let again = try TransformableValueDecoder().decode(bytes)
/// print(again.stringArray ?? [])                            // ["swift", "core data"]
/// ```
public indirect enum TransformableValue: Sendable, Hashable {
    /// `NSNull` (and an archive whose root is nil).
    case null
    /// `NSString` or `NSMutableString`.
    case string(String)
    /// An integer `NSNumber` (`Int`, `Int64`…, archived as a plist integer).
    case integer(Int64)
    /// A floating-point `NSNumber` (`Double`, `Float`, archived as a plist real).
    case double(Double)
    /// A boolean `NSNumber` (archived as a plist boolean).
    case bool(Bool)
    /// `NSDecimalNumber`.
    case decimal(Decimal)
    /// `NSDate`.
    case date(Date)
    /// `NSData` or `NSMutableData`.
    case data(Data)
    /// `NSURL`, as its absolute string. A URL archived relative to a base URL is resolved
    /// against that base when it is read, and written back as an absolute URL.
    case url(String)
    /// `NSUUID`.
    case uuid(UUID)
    /// `NSArray` or `NSMutableArray`.
    case array([TransformableValue])
    /// `NSSet` or `NSMutableSet`.
    case set(Set<TransformableValue>)
    /// `NSDictionary` or `NSMutableDictionary`.
    case dictionary([TransformableValue: TransformableValue])
}

// MARK: Reading the value

extension TransformableValue {
    /// The text of a ``string(_:)``.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The number of an ``integer(_:)``.
    public var integerValue: Int64? {
        if case .integer(let number) = self { return number }
        return nil
    }

    /// The elements of an ``array(_:)``.
    public var arrayValue: [TransformableValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// The entries of a ``dictionary(_:)``.
    public var dictionaryValue: [TransformableValue: TransformableValue]? {
        if case .dictionary(let entries) = self { return entries }
        return nil
    }

    /// An ``array(_:)`` whose elements are all strings (a Swift `[String]` archived by an
    /// app) as `[String]`; nil for anything else.
    public var stringArray: [String]? {
        guard let items = arrayValue else { return nil }
        var texts: [String] = []
        texts.reserveCapacity(items.count)
        for item in items {
            guard let text = item.stringValue else { return nil }
            texts.append(text)
        }
        return texts
    }

    /// The Foundation class this value is archived as, for messages ("NSArray").
    public var className: String {
        switch self {
        case .null: "NSNull"
        case .string: "NSString"
        case .integer, .double, .bool: "NSNumber"
        case .decimal: "NSDecimalNumber"
        case .date: "NSDate"
        case .data: "NSData"
        case .url: "NSURL"
        case .uuid: "NSUUID"
        case .array: "NSArray"
        case .set: "NSSet"
        case .dictionary: "NSDictionary"
        }
    }
}

// MARK: Literals

extension TransformableValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension TransformableValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension TransformableValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension TransformableValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension TransformableValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: TransformableValue...) { self = .array(elements) }
}

extension TransformableValue: ExpressibleByDictionaryLiteral {
    /// A dictionary; a key given twice keeps its last value.
    public init(dictionaryLiteral elements: (TransformableValue, TransformableValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension TransformableValue {
    /// An array of strings (what an app's `[String]` attribute archives as).
    public init(strings: [String]) {
        self = .array(strings.map { .string($0) })
    }
}
