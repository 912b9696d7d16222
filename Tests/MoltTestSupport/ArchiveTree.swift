public import Molt

/// A keyed archive read as the object tree it stands for: every reference (`$class` too)
/// replaced by the object it names, so two archives of the same objects compare equal however
/// their writers ordered or shared the objects. An object met again below itself (a cycle,
/// as between an entity and its model) is written as a reference to its class; a
/// dictionary's entries are written by key, as they have no order.
public enum ArchiveTree {
    /// The tree under the archive's root object.
    public static func tree(of archive: PropertyList) -> String {
        let objects = archive.dictionaryValue?["$objects"]?.arrayValue ?? []
        let top = archive.dictionaryValue?["$top"]?.dictionaryValue ?? [:]
        var lines: [String] = []
        func write(_ value: PropertyList, _ indent: String, _ path: Set<UInt64>) {
            switch value {
            case .uid(let index):
                guard Int(index) < objects.count else {
                    lines.append(indent + "<missing \(index)>")
                    return
                }
                if path.contains(index) {
                    let name = className(objects[Int(index)], objects)
                    lines.append(indent + "<back to \(name)>")
                    return
                }
                write(objects[Int(index)], indent, path.union([index]))
            case .dictionary(var fields):
                // A dictionary's entries have no order: written by key.
                if case .array(let keys)? = fields["NS.keys"], case .array(let values)? = fields["NS.objects"],
                    keys.count == values.count
                {
                    fields["NS.keys"] = nil
                    fields["NS.objects"] = nil
                    for key in fields.keys.sorted() {
                        lines.append(indent + key + ":")
                        write(fields[key]!, indent + "  ", path)
                    }
                    let entries = zip(keys, values).map { key, value -> (String, PropertyList) in
                        var keyLines: [String] = []
                        swap(&lines, &keyLines)
                        write(key, "", path)
                        swap(&lines, &keyLines)
                        return (keyLines.joined(separator: " "), value)
                    }
                    for (key, value) in entries.sorted(by: { $0.0 < $1.0 }) {
                        lines.append(indent + "[" + key + "]:")
                        write(value, indent + "  ", path)
                    }
                    return
                }
                for key in fields.keys.sorted() {
                    lines.append(indent + key + ":")
                    write(fields[key]!, indent + "  ", path)
                }
            case .array(let items):
                lines.append(indent + "[\(items.count)]")
                for item in items { write(item, indent + "  ", path) }
            default:
                lines.append(indent + "\(value)")
            }
        }
        for key in top.keys.sorted() {
            lines.append(key + ":")
            write(top[key]!, "  ", [])
        }
        return lines.joined(separator: "\n")
    }

    static func className(_ object: PropertyList, _ objects: [PropertyList]) -> String {
        guard case .uid(let index)? = object.dictionaryValue?["$class"], Int(index) < objects.count else { return "?" }
        return objects[Int(index)].dictionaryValue?["$classname"]?.stringValue ?? "?"
    }
}
