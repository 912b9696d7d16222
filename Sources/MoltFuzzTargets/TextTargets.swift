internal import Foundation
internal import MoltCore
internal import MoltMapping
internal import MoltModel
internal import MoltStore

/// The expression and predicate language as fuzz targets.
enum TextTargets {
    /// Parses the text; what parses must print as text that parses back to the same tree, and
    /// a syntax error must point inside the text.
    static func expression(_ data: Data) -> String? {
        let text = String(decoding: data, as: UTF8.self)
        let expression: MappingExpression
        do {
            expression = try ExpressionParser().parse(text)
        } catch {
            return error.offset >= 0 && error.offset <= text.count
                ? nil : "the syntax error's offset \(error.offset) is outside the \(text.count) characters"
        }
        let printed = expression.description
        // Printing may add one level of parentheses at the innermost negation ("-(0)").
        var parser = ExpressionParser()
        parser.maximumDepth += 1
        guard let reparsed = try? parser.parse(printed) else {
            return "\(text) parses, but its printed form \(printed) does not"
        }
        return reparsed == expression ? nil : "\(text) prints as \(printed), which parses to another tree"
    }

    /// The example Blog store, opened read-only once; the lock keeps one filter at a time on it.
    nonisolated(unsafe) static let blogStore: ObjectStore? = {
        guard let (model, _) = FuzzFiles.blogModels,
            let store = try? SQLiteStore(at: FuzzFiles.blogStore, readOnly: true, unchanging: true)
        else { return nil }
        return try? ObjectStore(store: store, model: model)
    }()
    static let lock = NSLock()

    /// Parses the text and runs it as a filter over the example store's posts and authors:
    /// the part translated to SQL must always be SQL that SQLite accepts, and evaluation may
    /// refuse an object only with a ``MoltError`` or an ``EvaluationError``.
    static func predicate(_ data: Data) -> String? {
        let text = String(decoding: data, as: UTF8.self)
        guard let filter = try? ExpressionParser().parse(text) else { return nil }
        guard let store = blogStore else { return "the example store could not be opened" }
        lock.lock()
        defer { lock.unlock() }
        let variables: [String: ExpressionValue] = ["cutoff": .string("2024-01-01T00:00:00Z"), "limit": .integer(3)]
        for entity in ["Post", "Author"] {
            do {
                let objects = try FilteredObjects(
                    store: store, entity: entity, filter: filter, variables: variables, batchSize: 2,
                    now: Date(timeIntervalSinceReferenceDate: 0))
                while try objects.nextBatch() != nil {}
            } catch let error as MoltError where error.code == .sqlite {
                return "the filter \(text) ran as SQL SQLite refuses: \(error.detailedDescription)"
            } catch is MoltError, is EvaluationError {
                continue  // a filter that does not apply to these objects
            } catch {
                return "the filter \(text) threw \(type(of: error)), not a MoltError: \(error)"
            }
        }
        return nil
    }
}
