import ArgumentParser
import Foundation
import Molt

#if canImport(Glibc)
    import Glibc
#endif

struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every object of a store, or its persistent history.",
        discussion: """
            The store is opened read-only. --json writes Molt's canonical JSON: entities by name, \
            objects by primary key, keys sorted, every stored property present; it is a valid \
            seed for `molt create`, and two stores with the same objects give byte-identical dumps. \
            Without --json, one line per object.

            --history prints the store's persistent history instead (the changes Core Data \
            records for apps that track history, SwiftData's and CloudKit's among them), decoded \
            with the store's model: for each change its key, transaction, type (insert, update, \
            delete), object (Entity/pk, as objects are named here; a deleted object's key names \
            no object) and, for an update, the properties it changed. --json writes \
            {"history": [{"change", "transaction", "type", "entity", "object", "properties"}, …]}; \
            a store without history gives "history": null and a note.
            """)

    @Argument(help: "The store file.")
    var store: String

    @Option(
        help:
            "The model: a .xcdatamodeld bundle (the version matching the store is used), .xcdatamodel or contents file."
    )
    var model: String

    @Flag(help: "Write Molt's canonical JSON instead of text.")
    var json = false

    @Flag(
        help:
            "Print the store's persistent history instead of its objects: each change's transaction, type, object and, for an update, the properties it changed."
    )
    var history = false

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output (replaced only when complete).")
    var output: String?

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let logger = global.bootstrap()
        try global.run(json: json) {
            // One read transaction: the dump is one committed version of the store, even while
            // a migration commits.
            let url = URL(fileURLWithPath: store)
            let opened = try ObjectStore.open(
                at: url, models: try ModelArguments.source(model), readOnly: true, snapshot: true, logger: logger)
            // Say so when a migration is running, or an interrupted one's files are beside the
            // store: the dump is the store as it is now (the old one), which may still change.
            let leftovers = [".molt-new", ".molt-swap"].map { store + $0 }.filter {
                FileManager.default.fileExists(atPath: $0)
            }
            if let running = MigrationLock.running(of: url) {
                Output.note(
                    "note: \(running); this is the store as it was last committed, which that migration may still replace"
                )
            } else if !leftovers.isEmpty {
                Output.note(
                    "note: an interrupted migration left \(leftovers.joined(separator: " and ")); this is the store as it is now, and `molt recover` (or the next migration) finishes or undoes that migration"
                )
            }
            let sink = try OutputSink(path: output)
            if history {
                try HistoryDump.write(try opened.historyChanges(), json: json) { try sink.write($0) }
            } else if json {
                try ObjectsJSONExporter().export(opened) { try sink.write($0) }
            } else {
                try TextDump.write(opened) { try sink.write($0) }
            }
            try sink.finish()
        }
    }
}

/// The store's persistent history, one line per change (``HistoryChange``), or `--json`
/// (``HistoryJSON``).
enum HistoryDump {
    static func write(_ changes: [HistoryChange]?, json: Bool, to output: (String) throws -> Void) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try output(String(decoding: try encoder.encode(HistoryJSON(changes)), as: UTF8.self) + "\n")
            return
        }
        guard let changes else {
            try output("The store has no persistent history (\(HistoryJSON.noHistoryReason)).\n")
            return
        }
        var text = ""
        for change in changes {
            text += change.description + "\n"
            if text.utf8.count > 65_536 {
                try output(text)
                text = ""
            }
        }
        if changes.isEmpty { text = "Persistent history: no changes.\n" }
        try output(text)
    }
}

/// One line per object: `Author/1  name="Ann"  books=[Book/1, Book/2]`.
enum TextDump {
    static func write(_ store: ObjectStore, to output: (String) throws -> Void) throws {
        for entity in store.layout.entities where !entity.isAbstract {
            let cursor = try store.objects(of: entity.name, includingSubentities: false)
            var header = false
            while let batch = try cursor.nextBatch() {
                if !header {
                    try output("\(entity.name):\n")
                    header = true
                }
                var text = ""
                for object in batch {
                    var parts = ["  \(object.id)"]
                    for column in entity.attributes {
                        parts.append("\(column.attribute.name)=\(describe(object.attributes[column.attribute.name]))")
                    }
                    for link in entity.relationships {
                        let ids = object.relationships[link.relationship.name]?.objectIDs ?? []
                        parts.append(
                            link.relationship.isToMany
                                ? "\(link.relationship.name)=[\(ids.map(\.description).joined(separator: ", "))]"
                                : "\(link.relationship.name)=\(ids.first?.description ?? "nil")")
                    }
                    text += parts.joined(separator: "  ") + "\n"
                }
                try output(text)
            }
        }
    }

    static func describe(_ value: AttributeValue?) -> String {
        guard let value else { return "nil" }
        switch value {
        case .integer(let number): return String(number)
        case .double(let number): return String(number)
        case .decimal(let number): return number.description
        case .bool(let flag): return flag ? "true" : "false"
        case .string(let text):
            let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t")
                .replacingOccurrences(of: "\r", with: "\\r")
            return "\"\(escaped)\""
        case .date(let date): return date.formatted(.iso8601)
        case .data(let bytes): return "<\(bytes.count) bytes>"
        case .uuid(let uuid): return uuid.uuidString
        case .uri(let text): return text
        }
    }
}

/// Standard output, or a file written beside its final path and moved there when complete.
final class OutputSink {
    private let path: String?
    private let temporary: URL?
    private let handle: FileHandle

    init(path: String?) throws {
        self.path = path
        guard let path else {
            temporary = nil
            handle = FileHandle.standardOutput
            return
        }
        let target = URL(fileURLWithPath: path)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(
            ".\(target.lastPathComponent).molt-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw MoltError(.fileWriteUnknown, "cannot create the output file", location: SourceLocation(file: path))
        }
        self.temporary = temporary
        handle = try FileHandle(forWritingTo: temporary)
    }

    deinit {
        if let temporary { try? FileManager.default.removeItem(at: temporary) }
    }

    func write(_ text: String) throws {
        do {
            try handle.write(contentsOf: Data(text.utf8))
        } catch {
            throw MoltError(
                .fileWriteUnknown, "cannot write: \(error.localizedDescription)",
                location: SourceLocation(file: path ?? "standard output"))
        }
    }

    func finish() throws {
        guard let path, let temporary else { return }
        do {
            try handle.synchronize()
            try handle.close()
        } catch {
            throw MoltError(
                .fileWriteUnknown, "cannot finish writing: \(error.localizedDescription)",
                location: SourceLocation(file: path))
        }
        // rename(2) replaces an existing file atomically: readers see the old or the new one.
        guard rename(temporary.path, path) == 0 else {
            throw MoltError(
                .fileWriteUnknown, "cannot move the output into place: \(String(cString: strerror(errno)))",
                location: SourceLocation(file: path))
        }
    }
}
