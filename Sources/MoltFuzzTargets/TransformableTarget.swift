internal import Foundation
internal import MoltCore

/// The reader of Transformable attribute values (keyed archives of Foundation property-list
/// objects) as a fuzz target.
enum TransformableTarget {
    /// Decodes the bytes. A refusal must be a 4864 naming the input; a value that decodes must
    /// be written by Molt's encoder into an archive that decodes and encodes again to the same
    /// bytes.
    static func run(_ data: Data) -> String? {
        let value: TransformableValue
        do {
            value = try TransformableValueDecoder().decode(data, name: FuzzTarget.fileName)
        } catch let error as MoltError {
            guard error.code == .coderReadCorrupt else {
                return "error code \(error.code.rawValue), expected 4864: \(error)"
            }
            return error.message.hasPrefix("\(FuzzTarget.fileName) ")
                ? nil : "the error does not name the input: \(error)"
        } catch {
            return "threw \(type(of: error)) instead of a MoltError: \(error)"
        }
        let once = TransformableValueEncoder().encode(value)
        do {
            let twice = TransformableValueEncoder().encode(try TransformableValueDecoder().decode(once))
            return twice == once ? nil : "a decoded value, encoded, decoded and encoded again, gives other bytes"
        } catch {
            return "Molt's archive of a decoded value does not decode: \(error)"
        }
    }

    /// Seeds: archives of every class, immutable and mutable, a URL relative to a base, and an
    /// archive holding a class Molt refuses.
    static func examples() -> [Data] {
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let value: TransformableValue = [
            "tags": ["swift", "core data"], "count": 2, "ratio": 0.5, "flag": true, "none": .null,
            "price": .decimal(Decimal(string: "12.50")!), "when": .date(Date(timeIntervalSinceReferenceDate: 1)),
            "bytes": .data(Data([1, 2])), "link": .url("https://example.com/"), "id": .uuid(uuid),
            "kinds": .set(["a", 1]), [1, 2]: ["nested": [.null]],
        ]
        let relative = KeyedArchiveBuilder()
        let url = relative.reserve()
        let base = relative.object(
            "NSURL", ["NS.base": relative.null, "NS.relative": relative.string("https://example.com/a/")])
        relative.fill(url, "NSURL", ["NS.base": base, "NS.relative": relative.string("b/c")])
        let refused = KeyedArchiveBuilder()
        let colour = refused.object("UIColor", ["UIWhite": .real(1)])
        return [
            TransformableValueEncoder().encode(value),
            TransformableValueEncoder(usesMutableClasses: true).encode(value),
            TransformableValueEncoder(usesMutableClasses: true).encode("text"),
            BinaryPropertyListWriter().write(relative.archive(root: url)),
            BinaryPropertyListWriter().write(refused.archive(root: refused.array([colour]))),
        ]
    }
}
