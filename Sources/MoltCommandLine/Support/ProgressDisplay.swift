import Foundation
import Molt

#if canImport(Glibc)
    import Glibc
#endif

/// Shows migration progress on standard error: a bar redrawn in place on a terminal, or (with
/// --progress) a line every 5%; nothing otherwise.
final class ProgressDisplay: @unchecked Sendable {
    let isTerminal = isatty(STDERR_FILENO) == 1
    let lines: Bool
    private var lastPercent = -1
    private let lock = NSLock()

    init(lines: Bool) {
        self.lines = lines
    }

    var isActive: Bool { isTerminal || lines }

    func show(_ progress: MigrationProgress) {
        lock.lock()
        defer { lock.unlock() }
        let percent = Int(progress.fraction * 100)
        if isTerminal {
            let width = 30
            let filled = Int(progress.fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            let text =
                "\r[\(bar)] \(String(format: "%3d", percent))% \(progress.pass.rawValue) \(progress.step ?? "") \(progress.completed)/\(progress.total)"
            FileHandle.standardError.write(Data((text.padding(toLength: 100, withPad: " ", startingAt: 0)).utf8))
        } else if percent / 5 != lastPercent / 5 {
            FileHandle.standardError.write(Data("molt: \(progress)\n".utf8))
        }
        lastPercent = percent
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if isTerminal, lastPercent >= 0 {
            FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: 100) + "\r").utf8))
        }
    }
}
