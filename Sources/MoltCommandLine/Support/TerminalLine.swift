import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One line of standard error redrawn in place, when standard error is a terminal: each
/// drawing returns to the line's start, writes text cut to the terminal's width (so it never
/// wraps onto a second line that the next drawing could not reach) and erases what is left of
/// the old text; ``clear()`` leaves the cursor at the start of an empty line, so what is printed
/// next starts a line of its own.
final class TerminalLine: @unchecked Sendable {
    let isTerminal: Bool
    private var drawn = false
    private let lock = NSLock()

    init(isTerminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.isTerminal = isTerminal
    }

    /// The terminal's width in columns (80 when it cannot be read).
    static var columns: Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Draws `text` (one line) in place of what was drawn before.
    func draw(_ text: String) {
        guard isTerminal else { return }
        lock.lock()
        defer { lock.unlock() }
        // One column is left free: a line filling the last column wraps on some terminals.
        let fitted = String(text.prefix(max(10, Self.columns - 1)))
        FileHandle.standardError.write(Data("\r\(fitted)\u{1B}[K".utf8))
        drawn = true
    }

    /// Erases the line, if anything was drawn.
    func clear() {
        guard isTerminal else { return }
        lock.lock()
        defer { lock.unlock() }
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }

    /// A bar of `width` characters, `fraction` of it filled: `[#######        ]`.
    static func bar(_ fraction: Double, width: Int = 30) -> String {
        let filled = max(0, min(width, Int(fraction * Double(width))))
        return "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "]"
    }
}
