public import Foundation

/// Writes Apple's binary property lists (`bplist00`).
///
/// Output is repeatable: dictionary keys are written in ascending order and equal strings,
/// numbers and data are stored once. Non-negative integers take the fewest of 1, 2, 4 or 8
/// bytes; negative ones take 8, as Apple's writer does.
public struct BinaryPropertyListWriter {
    public init() {}

    public func write(_ value: PropertyList) -> Data {
        var flattener = Flattener()
        let top = flattener.add(value)
        let objects = flattener.objects
        let referenceSize = Self.byteCount(for: UInt64(max(objects.count - 1, 0)))

        var out: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(out.count)
            Self.encode(object, referenceSize: referenceSize, into: &out)
        }
        let tableStart = out.count
        let offsetSize = Self.byteCount(for: UInt64(tableStart))
        for offset in offsets {
            Self.appendBigEndian(UInt64(offset), size: offsetSize, to: &out)
        }
        out.append(contentsOf: [0, 0, 0, 0, 0, 0])
        out.append(UInt8(offsetSize))
        out.append(UInt8(referenceSize))
        Self.appendBigEndian(UInt64(objects.count), size: 8, to: &out)
        Self.appendBigEndian(UInt64(top), size: 8, to: &out)
        Self.appendBigEndian(UInt64(tableStart), size: 8, to: &out)
        return Data(out)
    }

    fileprivate enum Flat {
        case scalar(PropertyList)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    private struct Flattener {
        var objects: [Flat] = []
        var scalars: [PropertyList: Int] = [:]

        mutating func add(_ value: PropertyList) -> Int {
            switch value {
            case .array(let items):
                let index = objects.count
                objects.append(.array([]))
                let children = items.map { add($0) }
                objects[index] = .array(children)
                return index
            case .dictionary(let entries):
                let index = objects.count
                objects.append(.dictionary(keys: [], values: []))
                let sorted = entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                let keys = sorted.map { add(.string($0.key)) }
                let values = sorted.map { add($0.value) }
                objects[index] = .dictionary(keys: keys, values: values)
                return index
            default:
                if let existing = scalars[value] { return existing }
                objects.append(.scalar(value))
                scalars[value] = objects.count - 1
                return objects.count - 1
            }
        }
    }

    static func byteCount(for value: UInt64) -> Int {
        if value <= 0xFF { return 1 }
        if value <= 0xFFFF { return 2 }
        if value <= 0xFFFF_FFFF { return 4 }
        return 8
    }

    static func appendBigEndian(_ value: UInt64, size: Int, to out: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    static func appendMarker(_ kind: UInt8, length: Int, to out: inout [UInt8]) {
        if length < 15 {
            out.append(kind << 4 | UInt8(length))
        } else {
            out.append(kind << 4 | 0x0F)
            appendInteger(Int64(length), to: &out)
        }
    }

    static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 {
            out.append(0x13)
            appendBigEndian(UInt64(bitPattern: value), size: 8, to: &out)
            return
        }
        let size = byteCount(for: UInt64(value))
        let exponent: UInt8 = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3
        out.append(0x10 | exponent)
        appendBigEndian(UInt64(value), size: size, to: &out)
    }

    fileprivate static func encode(_ object: Flat, referenceSize: Int, into out: inout [UInt8]) {
        switch object {
        case .array(let children):
            appendMarker(0xA, length: children.count, to: &out)
            for child in children { appendBigEndian(UInt64(child), size: referenceSize, to: &out) }
        case .dictionary(let keys, let values):
            appendMarker(0xD, length: keys.count, to: &out)
            for key in keys { appendBigEndian(UInt64(key), size: referenceSize, to: &out) }
            for value in values { appendBigEndian(UInt64(value), size: referenceSize, to: &out) }
        case .scalar(let value):
            switch value {
            case .bool(let flag):
                out.append(flag ? 0x09 : 0x08)
            case .integer(let number):
                appendInteger(number, to: &out)
            case .real(let number):
                out.append(0x23)
                appendBigEndian(number.bitPattern, size: 8, to: &out)
            case .date(let date):
                out.append(0x33)
                appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8, to: &out)
            case .data(let bytes):
                appendMarker(0x4, length: bytes.count, to: &out)
                out.append(contentsOf: bytes)
            case .string(let text):
                if text.utf8.allSatisfy({ $0 < 0x80 }) {
                    appendMarker(0x5, length: text.utf8.count, to: &out)
                    out.append(contentsOf: text.utf8)
                } else {
                    let units = Array(text.utf16)
                    appendMarker(0x6, length: units.count, to: &out)
                    for unit in units {
                        out.append(UInt8(unit >> 8))
                        out.append(UInt8(unit & 0xFF))
                    }
                }
            case .uid(let number):
                let size = byteCount(for: number)
                out.append(0x80 | UInt8(size - 1))
                appendBigEndian(number, size: size, to: &out)
            case .array, .dictionary:
                preconditionFailure("containers are flattened before encoding")
            }
        }
    }
}
