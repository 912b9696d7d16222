public import Foundation

/// Reads Apple's binary property lists (`bplist00`).
///
/// The layout: an 8-byte header, the objects, a table of object offsets, and a 32-byte trailer
/// giving the offset and reference sizes, the object count, the top object and where the
/// offset table starts. Every offset, length and reference is checked against the data, so a
/// truncated or hostile file gives ``MoltError/Code-swift.struct/propertyListReadCorrupt`` and
/// never a crash. Objects shared by several containers are decoded once, and references that
/// loop back to an enclosing container are refused.
public struct BinaryPropertyListReader {
    /// The deepest nesting of arrays and dictionaries accepted.
    public var maximumDepth: Int = 512

    public init() {}

    /// Decodes `data`; `name` (such as "Z_METADATA.Z_PLIST") is used in error messages.
    public func read(_ data: Data, name: String = "property list") throws -> PropertyList {
        var decoder = try Decoder(bytes: Array(data), name: name, maximumDepth: maximumDepth)
        return try decoder.decodeTop()
    }

    /// Whether `data` starts with the binary property list header.
    public static func isBinaryPropertyList(_ data: Data) -> Bool {
        data.starts(with: Array("bplist00".utf8))
    }
}

private struct Decoder {
    let bytes: [UInt8]
    let name: String
    let maximumDepth: Int
    let offsetSize: Int
    let referenceSize: Int
    let objectCount: Int
    let topObject: Int
    let offsetTableStart: Int
    var cache: [Int: PropertyList] = [:]
    var onPath: Set<Int> = []

    init(bytes: [UInt8], name: String, maximumDepth: Int) throws {
        self.bytes = bytes
        self.name = name
        self.maximumDepth = maximumDepth
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist00".utf8)) else {
            throw Decoder.corrupt(name, "it does not start with the binary property list header")
        }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        let count = Decoder.bigEndian(bytes, at: trailer + 8, size: 8)
        let top = Decoder.bigEndian(bytes, at: trailer + 16, size: 8)
        let table = Decoder.bigEndian(bytes, at: trailer + 24, size: 8)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw Decoder.corrupt(name, "its trailer gives invalid offset or reference sizes")
        }
        guard count >= 1, count <= UInt64(bytes.count), top < count,
            table >= 8, table <= UInt64(trailer),
            count * UInt64(offsetSize) <= UInt64(trailer) - table
        else {
            throw Decoder.corrupt(name, "its trailer points outside the data")
        }
        objectCount = Int(count)
        topObject = Int(top)
        offsetTableStart = Int(table)
    }

    static func corrupt(_ name: String, _ reason: String) -> MoltError {
        MoltError(
            .propertyListReadCorrupt, "\(name) is not a valid binary property list: \(reason)",
            recovery: "The data is damaged or was not written by a property-list writer.")
    }

    static func bigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + size) {
            value = value << 8 | UInt64(bytes[index])
        }
        return value
    }

    mutating func decodeTop() throws -> PropertyList {
        try decodeObject(topObject, depth: 0)
    }

    func offset(of object: Int) throws -> Int {
        let value = Decoder.bigEndian(bytes, at: offsetTableStart + object * offsetSize, size: offsetSize)
        guard value >= 8, value < UInt64(offsetTableStart) else {
            throw Decoder.corrupt(name, "object \(object) lies outside the object area")
        }
        return Int(value)
    }

    func need(_ count: Int, at offset: Int) throws {
        guard count >= 0, offset <= offsetTableStart, count <= offsetTableStart - offset else {
            throw Decoder.corrupt(name, "an object at byte \(offset) runs past the object area")
        }
    }

    /// Reads the length in the marker's low nibble, or the integer object after it when the
    /// nibble is 0xF. Returns the length and where the payload starts.
    func length(marker: UInt8, at offset: Int) throws -> (Int, Int) {
        let low = Int(marker & 0x0F)
        if low != 0x0F { return (low, offset + 1) }
        try need(1, at: offset + 1)
        let intMarker = bytes[offset + 1]
        guard intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else {
            throw Decoder.corrupt(name, "a length at byte \(offset) is not an integer")
        }
        let size = 1 << Int(intMarker & 0x0F)
        try need(size, at: offset + 2)
        let value = Decoder.bigEndian(bytes, at: offset + 2, size: size)
        guard value <= UInt64(bytes.count) else {
            throw Decoder.corrupt(name, "a length at byte \(offset) is larger than the data")
        }
        return (Int(value), offset + 2 + size)
    }

    func reference(at offset: Int) throws -> Int {
        let value = Decoder.bigEndian(bytes, at: offset, size: referenceSize)
        guard value < UInt64(objectCount) else {
            throw Decoder.corrupt(name, "a reference at byte \(offset) names a missing object")
        }
        return Int(value)
    }

    mutating func decodeObject(_ object: Int, depth: Int) throws -> PropertyList {
        if let cached = cache[object] { return cached }
        guard depth <= maximumDepth else {
            throw Decoder.corrupt(name, "it nests deeper than \(maximumDepth) levels")
        }
        guard !onPath.contains(object) else {
            throw Decoder.corrupt(name, "object \(object) contains itself")
        }
        let start = try offset(of: object)
        let marker = bytes[start]
        let value: PropertyList
        switch marker >> 4 {
        case 0x0, 0x1, 0x2, 0x3, 0x8:
            value = try scalar(marker: marker, at: start)
        case 0x4, 0x5, 0x6:
            value = try bytesOrText(marker: marker, at: start)
        case 0xA, 0xC, 0xD:
            onPath.insert(object)
            defer { onPath.remove(object) }
            value =
                marker >> 4 == 0xD
                ? try dictionary(marker: marker, at: start, depth: depth)
                : try array(marker: marker, at: start, depth: depth)
        default:
            throw Decoder.corrupt(name, "unsupported marker 0x\(String(marker, radix: 16)) at byte \(start)")
        }
        cache[object] = value
        return value
    }

    /// A boolean, integer, real, date or uid.
    func scalar(marker: UInt8, at start: Int) throws -> PropertyList {
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: throw Decoder.corrupt(name, "unsupported marker 0x\(String(marker, radix: 16)) at byte \(start)")
            }
        case 0x1:
            return .integer(try integer(marker: marker, at: start))
        case 0x2:
            let size = 1 << Int(marker & 0x0F)
            try need(size, at: start + 1)
            let raw = Decoder.bigEndian(bytes, at: start + 1, size: size)
            switch size {
            case 4: return .real(Double(Float(bitPattern: UInt32(raw))))
            case 8: return .real(Double(bitPattern: raw))
            default: throw Decoder.corrupt(name, "a real at byte \(start) has \(size) bytes")
            }
        case 0x3:
            guard marker == 0x33 else {
                throw Decoder.corrupt(name, "a date at byte \(start) has a bad marker")
            }
            try need(8, at: start + 1)
            return .date(
                Date(
                    timeIntervalSinceReferenceDate:
                        Double(bitPattern: Decoder.bigEndian(bytes, at: start + 1, size: 8))))
        default:
            let size = Int(marker & 0x0F) + 1
            try need(size, at: start + 1)
            guard size <= 8 else { throw Decoder.corrupt(name, "a uid at byte \(start) is too long") }
            return .uid(Decoder.bigEndian(bytes, at: start + 1, size: size))
        }
    }

    /// Data, an ASCII string or a UTF-16 string.
    func bytesOrText(marker: UInt8, at start: Int) throws -> PropertyList {
        let (count, payload) = try length(marker: marker, at: start)
        switch marker >> 4 {
        case 0x4:
            try need(count, at: payload)
            return .data(Data(bytes[payload..<(payload + count)]))
        case 0x5:
            try need(count, at: payload)
            let slice = bytes[payload..<(payload + count)]
            guard slice.allSatisfy({ $0 < 0x80 }) else {
                throw Decoder.corrupt(name, "an ASCII string at byte \(start) holds non-ASCII bytes")
            }
            return .string(String(decoding: slice, as: UTF8.self))
        default:
            guard count <= Int.max / 2 else { throw Decoder.corrupt(name, "a string is too long") }
            try need(count * 2, at: payload)
            var units = [UInt16]()
            units.reserveCapacity(count)
            for index in 0..<count {
                units.append(UInt16(bytes[payload + 2 * index]) << 8 | UInt16(bytes[payload + 2 * index + 1]))
            }
            guard let string = String(validating: units, as: UTF16.self) else {
                throw Decoder.corrupt(name, "a string at byte \(start) is not valid UTF-16")
            }
            return .string(string)
        }
    }

    /// An array or set (read as an array); its object is on the path while its items are read.
    mutating func array(marker: UInt8, at start: Int, depth: Int) throws -> PropertyList {
        let (count, payload) = try length(marker: marker, at: start)
        try need(count * referenceSize, at: payload)
        var items: [PropertyList] = []
        items.reserveCapacity(count)
        for index in 0..<count {
            let child = try reference(at: payload + index * referenceSize)
            items.append(try decodeObject(child, depth: depth + 1))
        }
        return .array(items)
    }

    /// A dictionary with string keys; its object is on the path while its entries are read.
    mutating func dictionary(marker: UInt8, at start: Int, depth: Int) throws -> PropertyList {
        let (count, payload) = try length(marker: marker, at: start)
        try need(count * referenceSize * 2, at: payload)
        var entries: [String: PropertyList] = [:]
        entries.reserveCapacity(count)
        for index in 0..<count {
            let keyObject = try reference(at: payload + index * referenceSize)
            let valueObject = try reference(at: payload + (count + index) * referenceSize)
            guard case .string(let key) = try decodeObject(keyObject, depth: depth + 1) else {
                throw Decoder.corrupt(name, "a dictionary at byte \(start) has a key that is not a string")
            }
            entries[key] = try decodeObject(valueObject, depth: depth + 1)
        }
        return .dictionary(entries)
    }

    func integer(marker: UInt8, at start: Int) throws -> Int64 {
        let size = 1 << Int(marker & 0x0F)
        try need(size, at: start + 1)
        switch size {
        case 1, 2, 4:
            return Int64(Decoder.bigEndian(bytes, at: start + 1, size: size))
        case 8:
            return Int64(bitPattern: Decoder.bigEndian(bytes, at: start + 1, size: 8))
        case 16:
            // 128-bit integers: accept those that fit in 64 bits.
            let high = Decoder.bigEndian(bytes, at: start + 1, size: 8)
            let low = Decoder.bigEndian(bytes, at: start + 9, size: 8)
            if high == 0, low <= UInt64(Int64.max) { return Int64(low) }
            if high == UInt64.max, low > UInt64(Int64.max) { return Int64(bitPattern: low) }
            throw Decoder.corrupt(name, "an integer at byte \(start) does not fit in 64 bits")
        default:
            throw Decoder.corrupt(name, "an integer at byte \(start) has \(size) bytes")
        }
    }
}
