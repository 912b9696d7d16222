internal import MoltCore
internal import MoltModel

/// A composite attribute's value in JSON: one object keyed by element name, a nested
/// composite as a nested object (`"home": {"city": "Paris", "geo": {"latitude": 48.8}}`), and
/// `null` when every leaf is empty (Core Data's nil composite). The store keeps one column per
/// leaf, named in the layout by its path (`home.city`).
struct CompositeJSON {
    private final class Node {
        var text: String?
        var children: [(String, Node)] = []

        func child(_ name: String) -> Node {
            if let found = children.first(where: { $0.0 == name }) { return found.1 }
            let made = Node()
            children.append((name, made))
            return made
        }

        var isEmpty: Bool { text.map { $0 == "null" } ?? children.allSatisfy { $0.1.isEmpty } }

        var json: String {
            if let text { return text }
            if isEmpty { return "null" }
            let members = children.sorted { NameOrder.precedes($0.0, $1.0) }
            return "{" + members.map { JSONText.quoted($0.0) + ": " + $0.1.json }.joined(separator: ", ") + "}"
        }
    }

    private let root = Node()

    /// Adds a leaf's value (JSON text) at its path.
    func add(path: String, text: String) {
        var node = root
        for part in path.split(separator: ".") { node = node.child(String(part)) }
        node.text = text
    }

    /// The top-level composites as (name, JSON text).
    var fields: [(String, String)] {
        root.children.map { ($0.0, $0.1.json) }
    }

    /// A composite's members as leaf paths and JSON values: `{"city": "Paris"}` under `home`
    /// gives `home.city`. `null` gives every leaf under `path` that `leaves` lists as null.
    /// Anything but an object or null is an error naming what was expected.
    static func flatten(
        _ node: JSONNode, at path: String, leaves: [String], into result: inout [String: JSONNode]
    ) throws {
        if node.isNull {
            for leaf in leaves where leaf.hasPrefix(path + ".") { result[leaf] = node }
            return
        }
        guard case .object(let members) = node.kind else {
            throw MoltError(
                .fileReadCorruptFile,
                "\(path) is a composite: expected an object of its elements, found \(node.kindName)")
        }
        for member in members {
            let memberPath = path + "." + member.key
            if leaves.contains(memberPath) {
                result[memberPath] = member.value
            } else if leaves.contains(where: { $0.hasPrefix(memberPath + ".") }) {
                try flatten(member.value, at: memberPath, leaves: leaves, into: &result)
            } else {
                let known = leaves.filter { $0.hasPrefix(path + ".") }.map { $0.dropFirst(path.count + 1) }
                    .compactMap { $0.split(separator: ".").first.map(String.init) }
                var unique: [String] = []
                for name in known where !unique.contains(name) { unique.append(name) }
                throw MoltError(
                    .fileReadCorruptFile,
                    "the composite \(path) has no element \"\(member.key)\" (it has: \(unique.joined(separator: ", ")))"
                )
            }
        }
    }
}
