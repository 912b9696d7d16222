import Foundation
import Molt

/// Shows a run's progress on standard error: a bar redrawn in place on a terminal, or (with
/// --progress) a line every 5%; nothing otherwise. ``finish()`` erases the bar, and must come
/// before anything else is printed, so a summary never follows a bar on its line.
///
/// Every command with a bar (migrate, upgrade, create) shows the same measure the same way:
/// the bar and the percentage are the whole run's, labelled "overall", and what follows is the
/// part being run with its own count, which starts again at each pass:
/// `[#########        ]  27% overall · copy CommentToComment 243017/300000`.
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
        show(fraction: progress.fraction, activity: progress.activity)
    }

    func show(_ progress: SeedProgress) {
        show(fraction: progress.fraction, activity: progress.activity)
    }

    /// Shows `fraction` of the whole run done, `activity` (the part running and its count)
    /// being done.
    func show(fraction: Double, activity: String) {
        lock.lock()
        defer { lock.unlock() }
        let percent = Int(fraction * 100)
        if isTerminal {
            // Padded to three digits, so the text after it stays in place as the bar fills.
            let padded = String(format: "%3d", percent)
            terminal.draw("\(TerminalLine.bar(fraction)) \(padded)% overall · \(activity)")
        } else if lines && percent / 5 != lastPercent / 5 {
            FileHandle.standardError.write(Data("molt: \(Self.line(fraction: fraction, activity: activity))\n".utf8))
        }
        lastPercent = percent
    }

    /// `27% overall · copy CommentToComment 243017/300000`: a progress line (the percentage
    /// rounded down, so 100% means done).
    static func line(fraction: Double, activity: String) -> String {
        "\(Int(fraction * 100))% overall · \(activity)"
    }

    func finish() {
        terminal.clear()
    }
}
