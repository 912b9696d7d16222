import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The other processes that have a store open, for messages: "in use by process 4182
/// (MyApp)". On Linux every process's open files are listed under `/proc/PID/fd`; a process
/// counts when one of them is the store file, its `-wal` or its `-shm` (compared by device and
/// inode, so a store reached by another name counts too). This process is left out, and so
/// are processes whose files this user may not list (another user's, unless run as root).
///
/// Only ever asked for a message: who holds a store is decided by SQLite's locks, never by
/// this list, which can change the moment after it is read.
enum StoreUsers {
    /// One process and its command name.
    struct User: Equatable, CustomStringConvertible {
        var process: Int32
        var name: String?

        var description: String { name.map { "process \(process) (\($0))" } ?? "process \(process)" }
    }

    /// The other processes with the store at `path` (or its log or index) open, by process id;
    /// empty where the system does not say (not Linux).
    static func of(_ path: String) -> [User] {
        #if os(Linux)
            let targets = Set([path, path + "-wal", path + "-shm"].compactMap(identity))
            guard !targets.isEmpty,
                let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc")
            else { return [] }
            let own = getpid()
            var users: [User] = []
            for entry in entries {
                guard let process = Int32(entry), process != own else { continue }
                let folder = "/proc/\(entry)/fd"
                guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
                // stat(2) of /proc/PID/fd/N follows the link to the open file itself.
                if descriptors.contains(where: { identity(folder + "/" + $0).map(targets.contains) == true }) {
                    users.append(User(process: process, name: commandName(of: process)))
                }
            }
            return users.sorted { $0.process < $1.process }
        #else
            return []
        #endif
    }

    /// "process 4182 (MyApp) and process 4190 (sqlite3)", or nil when none is known.
    static func describe(_ path: String) -> String? {
        let users = of(path)
        guard !users.isEmpty else { return nil }
        let names = users.prefix(5).map(\.description)
        let more = users.count > 5 ? " and \(users.count - 5) more" : ""
        if names.count == 1 { return names[0] + more }
        return names.dropLast().joined(separator: ", ") + " and " + names.last! + more
    }

    private static func identity(_ path: String) -> [UInt64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }

    private static func commandName(of process: Int32) -> String? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(process)/comm") else { return nil }
        let name = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? nil : name
    }
}
