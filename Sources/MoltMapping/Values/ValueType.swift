import MoltModel

/// What an expression is known to produce before it runs, for checking mapping files.
indirect enum ValueType: Hashable, CustomStringConvertible {
    /// Not known until it runs (a policy's function, a user-info value used as a number…).
    case unknown
    case null, bool, integer, double, decimal, string, date, data, uuid, uri
    /// An object of an entity (nil: not known) in the source or destination store.
    case object(String?, ObjectReference.Store)
    case collection(ValueType)
    case target(FunctionTarget)
    /// A composite attribute (`path`: `home`, or `home.geo` when nested) of an entity's objects.
    case composite(entity: String, store: ObjectReference.Store, path: String)

    var description: String {
        switch self {
        case .unknown: "a value"
        case .null: "nil"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .double: "a number"
        case .decimal: "a decimal number"
        case .string: "text"
        case .date: "a date"
        case .data: "binary data"
        case .uuid: "a UUID"
        case .uri: "a URI"
        case .object(let entity?, let store): "\(entity) objects of the \(store) store"
        case .object(nil, let store): "objects of the \(store) store"
        case .collection(let element): "a collection of \(element)"
        case .target(let target): "$\(target.rawValue)"
        case .composite(let entity, _, let path): "the composite \(entity).\(path)"
        }
    }

    var isNumeric: Bool {
        switch self {
        case .integer, .double, .decimal, .bool: true
        default: false
        }
    }

    var isText: Bool { self == .string || self == .uri }

    /// The element type of a collection, or the type itself.
    var element: ValueType {
        if case .collection(let inner) = self { return inner }
        return self
    }

    init(_ type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64: self = .integer
        case .double, .float: self = .double
        case .decimal: self = .decimal
        case .boolean: self = .bool
        case .string: self = .string
        case .date: self = .date
        case .binary, .transformable: self = .data
        case .uuid: self = .uuid
        case .uri: self = .uri
        case .undefined, .objectID, .composite: self = .unknown
        }
    }
}
