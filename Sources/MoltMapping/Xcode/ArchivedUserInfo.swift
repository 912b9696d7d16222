internal import Foundation
internal import MoltCore

/// An entity mapping's user info (`userinfodata`): a keyed archive of an `NSDictionary` whose
/// keys and values are text (what Xcode's user-info editor writes). Entries come out sorted by
/// key, since a dictionary has no order; a value that is not text is refused, as Molt's user
/// info is text.
enum ArchivedUserInfo {
    static func entries(from data: Data, place: ArchivePlace) throws -> [UserInfoEntry] {
        try place.locating {
            let root = try place.archive(data).root()
            guard root.isKind(of: "NSDictionary") else {
                throw place.error("is an archived \(root.className), not a dictionary")
            }
            var entries: [UserInfoEntry] = []
            for (key, value) in try root.entries() {
                switch value {
                case .plain(.string(let text))?:
                    entries.append(UserInfoEntry(key: key, value: text))
                case .object(let object)? where object.isKind(of: "NSString"):
                    entries.append(UserInfoEntry(key: key, value: try object.string("NS.string") ?? ""))
                case .plain(let plain)?:
                    throw place.error("has \"\(key)\" of kind \(plain.kindName), but Molt's user info is text")
                case .object(let object)?:
                    throw place.error("has \"\(key)\" of class \(object.className), but Molt's user info is text")
                case nil:
                    throw place.error("has \"\(key)\" with no value")
                }
            }
            return entries.sorted { $0.key < $1.key }
        }
    }
}
