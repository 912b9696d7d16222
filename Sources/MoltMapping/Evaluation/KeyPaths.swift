import Foundation
import MoltCore

/// Following key paths: a key of an object, of every object of a collection (flattened, nils
/// left out), collection operators and indexes.
enum KeyPaths {
    /// Whether a key is NSPredicate's `SELF` (a reserved word, in any case).
    static func isSelf(_ key: String) -> Bool {
        key.utf8.count == 4 && key.uppercased() == "SELF"
    }

    static func step(
        _ value: ExpressionValue, _ key: String, context: EvaluationContext, offset: Int
    ) throws
        -> ExpressionValue
    {
        if let op = CollectionOperator(rawValue: key) {
            return try collectionOperator(op, value, offset: offset)
        }
        // `SELF`: the object itself (of a collection, each object), as in NSPredicate.
        if isSelf(key) { return value }
        switch value {
        case .null:
            return .null
        case .object(let reference):
            guard let resolver = context.resolver else {
                throw EvaluationError("cannot read \"\(key)\": no store to read objects from", offset: offset)
            }
            do {
                return try resolver.value(of: key, on: reference)
            } catch let error as EvaluationError {
                throw error
            } catch let error as MoltError {
                throw EvaluationError(error.message, offset: offset)
            } catch {
                throw EvaluationError("\(error)", offset: offset)
            }
        case .composite(let reference, let path):
            guard let resolver = context.resolver else {
                throw EvaluationError("cannot read \"\(key)\": no store to read objects from", offset: offset)
            }
            do {
                return try resolver.value(of: path + "." + key, on: reference)
            } catch let error as MoltError {
                throw EvaluationError(error.message, offset: offset)
            }
        case .collection(let items):
            var result: [ExpressionValue] = []
            for item in items {
                switch try step(item, key, context: context, offset: offset) {
                case .null: continue
                case .collection(let inner): result += inner
                case let other: result.append(other)
                }
            }
            return .collection(result)
        default:
            throw EvaluationError("cannot read the key \"\(key)\" of \(value.kindName)", offset: offset)
        }
    }

    static func elements(_ value: ExpressionValue, for what: String, offset: Int) throws -> [ExpressionValue] {
        switch value {
        case .collection(let items): return items
        case .null: return []
        default: throw EvaluationError("\(what) needs a collection, not \(value.kindName)", offset: offset)
        }
    }

    static func collectionOperator(
        _ op: CollectionOperator, _ value: ExpressionValue, offset: Int
    ) throws
        -> ExpressionValue
    {
        let items = try elements(value, for: op.rawValue, offset: offset)
        switch op {
        case .count: return .integer(Int64(items.count))
        case .sum: return try BuiltinEvaluation.call(.sum, [.collection(items)], offset: offset)
        case .average: return try BuiltinEvaluation.call(.average, [.collection(items)], offset: offset)
        case .minimum: return try BuiltinEvaluation.call(.min, [.collection(items)], offset: offset)
        case .maximum: return try BuiltinEvaluation.call(.max, [.collection(items)], offset: offset)
        }
    }

    static func index(
        _ value: ExpressionValue, _ index: IndexKind, position: ExpressionValue?, offset: Int
    ) throws
        -> ExpressionValue
    {
        let items = try elements(value, for: "an index", offset: offset)
        switch index {
        case .first: return items.first ?? .null
        case .last: return items.last ?? .null
        case .size: return .integer(Int64(items.count))
        case .position:
            guard case .integer(let number)? = position else {
                throw EvaluationError("an index must be an integer", offset: offset)
            }
            guard number >= 0, number < items.count else {
                throw EvaluationError("index \(number) is outside a collection of \(items.count)", offset: offset)
            }
            return items[Int(number)]
        }
    }
}
