public import Logging

/// The logger a library call uses when its caller gives none: notices, warnings and errors
/// only, so an app (or a test run) that did not ask for Molt's progress sees none of it. A
/// caller that wants it passes its own `Logger` (its level is kept); `molt` passes one set by
/// `--verbose` or `--log-level`.
///
/// ```swift
/// let quiet = LibraryLogger.make("molt.migration")       // notice and above
/// var chatty = Logger(label: "app.migration"); chatty.logLevel = .info
/// let context = RunContext(logger: chatty)                 // info lines too
/// ```
public enum LibraryLogger {
    /// The level of a logger made here.
    public static let defaultLevel: Logger.Level = .notice

    public static func make(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = defaultLevel
        return logger
    }
}
