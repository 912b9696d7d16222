internal import Foundation
internal import MoltCore

/// An entity mapping's source expression (`sourceexpressiondata`, Xcode's "Source Fetch"),
/// read as a Molt filter.
///
/// Xcode's source expression is
/// `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Note", "TRUEPREDICATE"), $manager.sourceContext, NO)`:
/// fetch, from the source store, the objects of the mapping's source entity that match a
/// predicate given as text. A Molt entity mapping already reads its source entity's objects
/// from the source store, so the one thing left to carry over is the predicate, and Molt's
/// `<filter>` is written in the same language:
///
/// - no source expression, or `TRUEPREDICATE`: no filter (every object, Xcode's default);
/// - another predicate: that predicate, parsed as a `<filter>` is, becomes the filter (it must
///   be a condition, and Molt's predicate language must read it);
/// - the context may be written `$manager.sourceContext` or `FUNCTION($manager, "sourceContext")`
///   (the same call);
/// - anything else is refused, since Molt cannot run an arbitrary fetch: another entity than
///   the mapping's source, another context, a count-only fetch. An expression of another
///   shape (Apple: "any other expression that evaluates to a collection") is read, shown in
///   Molt's syntax and refused with what to change: which objects it gives depends on the run.
///
/// The fetch expression's own fields (`NSFRExpression` for the request, `NSMOCExpression` for
/// the context) are Foundation's names; no real file with a stored source expression was
/// available to check them, and a field Molt does not know is refused rather than ignored.
enum ArchivedSourceFetch {
    /// The selector of the fetch request Xcode's source expression makes.
    static let requestSelector = "fetchRequestForSourceEntityNamed:predicateString:"

    /// The filter the source expression archived in `data` stands for: nil for every object.
    static func filter(from data: Data, sourceEntity: String?, place: ArchivePlace) throws -> MappingExpression? {
        try place.locating {
            let root = try place.archive(data).root()
            guard root.className == "NSFetchRequestExpression" else {
                // Core Data maps each object of whatever collection the expression gives; Molt
                // reads the expression to say what it is, but runs only fetches.
                var decoder = ArchivedExpressionDecoder(place: place)
                let shown = (try? decoder.expression(root, depth: 1)).map { " (\($0))" } ?? ""
                throw refusal(
                    place,
                    "is an \(root.className)\(shown), not the fetch Xcode writes: Core Data would map each object of the collection it gives, which Molt cannot work out before the run"
                )
            }
            for (key, value) in root.fields.sorted(by: { $0.key < $1.key })
            where !["$class", "NSExpressionType", "NSFRExpression", "NSMOCExpression"].contains(key) {
                guard key.contains("CountOnly") else {
                    throw place.error(
                        "contains an NSFetchRequestExpression with a field \"\(key)\" that Molt does not read")
                }
                if value == .bool(true) || value == .integer(1) {
                    throw refusal(place, "only counts objects")
                }
            }
            var decoder = ArchivedExpressionDecoder(place: place)
            guard let requestObject = try root.object("NSFRExpression"),
                let contextObject = try root.object("NSMOCExpression")
            else {
                throw refusal(place, "has no fetch request or no context")
            }
            let request = try decoder.expression(requestObject, depth: 1)
            let context = try decoder.expression(contextObject, depth: 1)
            guard Self.isSourceContext(context) else {
                throw refusal(place, "reads from \(context), not $manager.sourceContext")
            }
            guard case .call(let target, requestSelector, let arguments) = request.kind,
                target.kind == .variable("manager"), arguments.count == 2,
                case .constant(.string(let entity)) = arguments[0].kind,
                case .constant(.string(let predicateText)) = arguments[1].kind
            else {
                throw refusal(place, "fetches with \(request), not with FUNCTION($manager, \"\(requestSelector)\", …)")
            }
            guard let sourceEntity else {
                throw place.error("fetches \(entity) objects, but the entity mapping has no source entity")
            }
            guard entity == sourceEntity else {
                throw place.error(
                    "fetches \(entity) objects, but the entity mapping's source entity is \(sourceEntity)")
            }
            let predicate: MappingExpression
            do {
                predicate = try ExpressionParser().parse(predicateText)
            } catch let error as SyntaxError {
                throw place.error(
                    "has the predicate \"\(predicateText)\", which Molt cannot read: \(error.message) (column \(error.offset + 1))"
                )
            }
            if case .truePredicate = predicate.kind { return nil }
            guard EntityMappingRules.canBeCondition(predicate) else {
                throw place.error("has the predicate \"\(predicateText)\", which is not a condition")
            }
            return predicate
        }
    }

    /// Whether `expression` is the migration manager's source context, in either spelling
    /// (`$manager.sourceContext`, or `FUNCTION($manager, "sourceContext")`: the same call).
    static func isSourceContext(_ expression: MappingExpression) -> Bool {
        if expression.description == "$manager.sourceContext" { return true }
        if case .call(let target, "sourceContext", let arguments) = expression.kind {
            return target.kind == .variable("manager") && arguments.isEmpty
        }
        return false
    }

    static func refusal(_ place: ArchivePlace, _ message: String) -> MoltError {
        place.error(
            message,
            recovery:
                "Molt imports Xcode's standard source fetch (the default fetch of the source entity, with or without a filter predicate). Set the Source Fetch back to it in Xcode's mapping editor, or convert the mapping (molt convert-mapping) and choose the objects with a <filter>, or in the policy's createDestinationInstances."
        )
    }
}
