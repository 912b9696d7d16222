import Foundation
import Molt

/// Shows migration progress on standard error: a bar redrawn in place on a terminal, or (with
/// --progress) a line every 5%; nothing otherwise. ``finish()`` erases the bar, and must come
/// before anything else is printed, so a summary never follows a bar on its line.
final class ProgressDisplay: @unchecked Sendable {
    private let terminal: TerminalLine
    let lines: Bool
    private var lastPercent = -1
    private let lock = NSLock()

    init(lines: Bool, terminal: TerminalLine = TerminalLine()) {
        self.lines = lines
        self.terminal = terminal
    }

    var isTerminal: Bool { terminal.isTerminal }
    var isActive: Bool { isTerminal || lines }

    func show(_ progress: MigrationProgress) {
        lock.lock()
        defer { lock.unlock() }
        let percent = Int(progress.fraction * 100)
        if isTerminal {
            terminal.draw(
                "\(TerminalLine.bar(progress.fraction)) \(String(format: "%3d", percent))% \(progress.activity)")
        } else if percent / 5 != lastPercent / 5 {
            FileHandle.standardError.write(Data("molt: \(progress)\n".utf8))
        }
        lastPercent = percent
    }

    func finish() {
        terminal.clear()
    }
}
