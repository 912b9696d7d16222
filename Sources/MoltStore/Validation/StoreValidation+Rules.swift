import Foundation
import MoltCore
import MoltModel

/// The rules an object's values must keep: Core Data's validation of attributes (optional,
/// ranges, lengths, regular expressions) and relationships (optional, counts).
extension StoreValidation {
    /// The attribute's rules broken by `value`.
    static func check(_ attribute: Attribute, _ value: AttributeValue?) -> [(MoltError.Code, String)] {
        guard let value else {
            return attribute.isOptional
                ? [] : [(.validationMissingMandatoryProperty, "is not optional but has no value")]
        }
        var failures: [(MoltError.Code, String)] = []
        let minimum = attribute.minimumValue.flatMap(Double.init)
        let maximum = attribute.maximumValue.flatMap(Double.init)
        switch value {
        case .string(let text):
            let length = Double(text.count)
            if let minimum, length < minimum {
                failures.append((.validationStringTooShort, "is \(Int(length)) characters, fewer than \(Int(minimum))"))
            }
            if let maximum, length > maximum {
                failures.append((.validationStringTooLong, "is \(Int(length)) characters, more than \(Int(maximum))"))
            }
            if let pattern = attribute.regularExpression, let regex = try? NSRegularExpression(pattern: pattern) {
                let range = NSRange(text.startIndex..., in: text)
                if regex.firstMatch(in: text, options: [.anchored], range: range)?.range != range {
                    failures.append((.validationStringPatternMatching, "\"\(text)\" does not match \(pattern)"))
                }
            }
        case .integer, .double, .decimal:
            let number: Double =
                switch value {
                case .integer(let integer): Double(integer)
                case .double(let double): double
                case .decimal(let decimal): NSDecimalNumber(decimal: decimal).doubleValue
                default: 0
                }
            if let minimum, number < minimum {
                failures.append((.validationNumberTooSmall, "\(number) is less than the minimum \(minimum)"))
            }
            if let maximum, number > maximum {
                failures.append((.validationNumberTooLarge, "\(number) is more than the maximum \(maximum)"))
            }
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            if let minimum, seconds < minimum {
                failures.append((.validationDateTooSoon, "\(date) is before the minimum"))
            }
            if let maximum, seconds > maximum {
                failures.append((.validationDateTooLate, "\(date) is after the maximum"))
            }
        default:
            break
        }
        return failures
    }

    /// The relationship's rule broken by `value`, if any.
    static func check(_ relationship: Relationship, _ value: RelationshipValue?) -> (MoltError.Code, String)? {
        check(relationship, count: value?.objectIDs.count ?? 0)
    }

    /// The relationship's rule broken by an object holding `count` related objects, if any.
    static func check(_ relationship: Relationship, count: Int) -> (MoltError.Code, String)? {
        switch relationship.countProblem(count) {
        case nil:
            return nil
        case .missing:
            return (.validationMissingMandatoryProperty, "is not optional but has no object")
        case .tooFew(let minimum):
            return (.validationRelationshipLacksMinimumCount, "has \(Self.objects(count)), fewer than \(minimum)")
        case .tooMany(let maximum):
            return (.validationRelationshipExceedsMaximumCount, "has \(Self.objects(count)), more than \(maximum)")
        }
    }

    /// "1 object", "3 objects".
    static func objects(_ count: Int) -> String {
        "\(count) object\(count == 1 ? "" : "s")"
    }
}
