internal import MoltCore

/// Reading the collections a compiled model is made of: dictionaries (plain, or Core Data's
/// `NSKnownKeysDictionary1`, whose keys live in a shared search mapping), arrays and sets.
extension CompiledModelContext {
    /// The entries of a dictionary object, in archive order, keys as text. An
    /// `NSKnownKeysDictionary1` keeps its keys in `searchMapping.keys` and its values, in the
    /// same order, in `values`; a slot holding `emptyToken` is empty.
    func dictionaryEntries(_ object: ArchivedObject, what: String) throws -> [(key: String, value: ArchivedValue?)] {
        guard object.fields["searchMapping"] != nil else {
            guard object.isKind(of: "NSDictionary") else {
                throw corrupt("\(what) is a \(object.className), not a dictionary")
            }
            let entries = try object.entries()
            try spend(entries.count)
            return entries
        }
        guard let mapping = try object.object("searchMapping"), let keyList = try mapping.object("keys") else {
            throw corrupt("\(what) (\(object.className)) has no search mapping keys")
        }
        let keys = try collectionElements(keyList, what: "the keys of \(what)")
        guard let valueList = try object.object("values") else {
            throw corrupt("\(what) (\(object.className)) has no values")
        }
        let values = try collectionElements(valueList, what: "the values of \(what)")
        guard keys.count == values.count else {
            throw corrupt("\(what) has \(keys.count) keys but \(values.count) values")
        }
        let emptyToken = try object.string("emptyToken")
        var result: [(key: String, value: ArchivedValue?)] = []
        for (key, value) in zip(keys, values) {
            if case .plain(.string(let token))? = value, token == emptyToken { continue }
            guard let name = try text(key) else { throw corrupt("a key of \(what) is not a string") }
            result.append((name, value))
        }
        return result
    }

    /// The elements of an array, set or ordered set object (`NS.objects`).
    func collectionElements(_ object: ArchivedObject, what: String) throws -> [ArchivedValue?] {
        guard object.fields["NS.objects"] != nil, object.fields["NS.keys"] == nil else {
            throw corrupt("\(what) is a \(object.className), not an array or a set")
        }
        guard let count = object.fields["NS.objects"]?.arrayValue?.count else {
            throw corrupt("\(what) (\(object.className)) has no NS.objects array")
        }
        try spend(count)
        return try object.elements()
    }

    /// The elements of the array or set at `key` of `object`; empty when absent or `$null`.
    func elements(_ object: ArchivedObject, _ key: String, what: String) throws -> [ArchivedValue?] {
        guard let collection = try object.object(key) else { return [] }
        return try collectionElements(collection, what: what)
    }

    /// A user-info dictionary as text: keys and string values; other values are noted and
    /// left out (Xcode only writes strings).
    func userInfo(_ object: ArchivedObject, _ key: String, owner: String) throws -> [String: String] {
        guard let dictionary = try object.object(key) else { return [:] }
        var result: [String: String] = [:]
        for entry in try dictionaryEntries(dictionary, what: "the user info of \(owner)") {
            if let value = try text(entry.value) {
                result[entry.key] = value
            } else if case .plain(let plain)? = entry.value, let value = plain.scalarText {
                result[entry.key] = value
            } else {
                note("the user info entry \"\(entry.key)\" of \(owner) is not text and is not kept")
            }
        }
        return result
    }
}

extension PropertyList {
    /// Numbers and booleans as text (for user info values archived as `NSNumber`).
    var scalarText: String? {
        switch self {
        case .string(let text): text
        case .integer(let number): String(number)
        case .real(let number): String(number)
        case .bool(let flag): flag ? "YES" : "NO"
        default: nil
        }
    }
}
