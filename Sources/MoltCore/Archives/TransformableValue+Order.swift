import Foundation

/// A fixed order of values, so that a set's elements and a dictionary's keys are archived in
/// the same order on every run (Swift's own set order changes from one process to the next).
///
/// Values of different cases are ordered by case (null, booleans, integers, doubles, decimals,
/// strings, data, dates, URLs, UUIDs, arrays, sets, dictionaries), values of one case by their
/// content: text and data by their bytes, containers element by element.
extension TransformableValue {
    /// Whether `self` comes before `other` in the archive order.
    func archiveOrderPrecedes(_ other: TransformableValue) -> Bool {
        compareForArchive(other) < 0
    }

    private var caseRank: Int {
        switch self {
        case .null: 0
        case .bool: 1
        case .integer: 2
        case .double: 3
        case .decimal: 4
        case .string: 5
        case .data: 6
        case .date: 7
        case .url: 8
        case .uuid: 9
        case .array: 10
        case .set: 11
        case .dictionary: 12
        }
    }

    /// Negative, zero or positive as `self` comes before, with, or after `other`.
    private func compareForArchive(_ other: TransformableValue) -> Int {
        switch (self, other) {
        case (.null, .null): return 0
        case (.bool(let left), .bool(let right)): return Self.compare(left ? 1 : 0, right ? 1 : 0)
        case (.integer(let left), .integer(let right)): return Self.compare(left, right)
        case (.double(let left), .double(let right)): return Self.compareTotally(left, right)
        case (.decimal(let left), .decimal(let right)):
            if left == right { return 0 }
            if left.isNaN || right.isNaN {
                return Self.compareBytes(Array(left.description.utf8), Array(right.description.utf8))
            }
            return left < right ? -1 : 1
        case (.string(let left), .string(let right)), (.url(let left), .url(let right)):
            return Self.compareBytes(Array(left.utf8), Array(right.utf8))
        case (.data(let left), .data(let right)): return Self.compareBytes(Array(left), Array(right))
        case (.date(let left), .date(let right)):
            return Self.compareTotally(left.timeIntervalSinceReferenceDate, right.timeIntervalSinceReferenceDate)
        case (.uuid(let left), .uuid(let right)):
            return Self.compareBytes(Array(left.uuidString.utf8), Array(right.uuidString.utf8))
        case (.array(let left), .array(let right)): return Self.compareSequences(left, right)
        case (.set(let left), .set(let right)):
            return Self.compareSequences(Self.sorted(left), Self.sorted(right))
        case (.dictionary(let left), .dictionary(let right)):
            let leftEntries = Self.sortedEntries(left)
            let rightEntries = Self.sortedEntries(right)
            for (leftEntry, rightEntry) in zip(leftEntries, rightEntries) {
                let keys = leftEntry.key.compareForArchive(rightEntry.key)
                if keys != 0 { return keys }
                let values = leftEntry.value.compareForArchive(rightEntry.value)
                if values != 0 { return values }
            }
            return Self.compare(leftEntries.count, rightEntries.count)
        default:
            return Self.compare(caseRank, other.caseRank)
        }
    }

    /// A set's elements in archive order.
    static func sorted(_ elements: Set<TransformableValue>) -> [TransformableValue] {
        elements.sorted { $0.archiveOrderPrecedes($1) }
    }

    /// A dictionary's entries in the archive order of their keys.
    static func sortedEntries(
        _ entries: [TransformableValue: TransformableValue]
    ) -> [(key: TransformableValue, value: TransformableValue)] {
        entries.sorted { $0.key.archiveOrderPrecedes($1.key) }
    }

    private static func compare<T: Comparable>(_ left: T, _ right: T) -> Int {
        left < right ? -1 : left == right ? 0 : 1
    }

    /// IEEE 754's total order, so that NaNs (which a damaged archive may hold) have a place too.
    private static func compareTotally(_ left: Double, _ right: Double) -> Int {
        if left.isTotallyOrdered(belowOrEqualTo: right) {
            return right.isTotallyOrdered(belowOrEqualTo: left) ? 0 : -1
        }
        return 1
    }

    private static func compareBytes(_ left: [UInt8], _ right: [UInt8]) -> Int {
        for (leftByte, rightByte) in zip(left, right) where leftByte != rightByte {
            return leftByte < rightByte ? -1 : 1
        }
        return compare(left.count, right.count)
    }

    private static func compareSequences(_ left: [TransformableValue], _ right: [TransformableValue]) -> Int {
        for (leftItem, rightItem) in zip(left, right) {
            let order = leftItem.compareForArchive(rightItem)
            if order != 0 { return order }
        }
        return compare(left.count, right.count)
    }
}
