import ArgumentParser
import Foundation
import Logging
import Molt

/// Options every subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Show error details and log progress (debug level) on standard error.")
    var verbose = false

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp("Log level on standard error (trace shows every SQL statement).", valueName: "level"))
    var logLevel: LogLevel?

    /// Sets up logging once, before a command runs.
    func bootstrap() -> Logger {
        // A write past a file-size limit (`ulimit -f`) fails with "file too large" and the
        // command stops on that error, cleanly, instead of being killed by SIGXFSZ.
        Interrupts.ignoreFileSizeSignal()
        let level = logLevel?.level ?? (verbose ? .debug : .warning)
        LoggingBootstrap.once(level: level)
        var logger = Logger(label: "molt")
        logger.logLevel = level
        return logger
    }

    /// Runs `body`, printing any error as one line and what to do about it (or in detail with
    /// --verbose) and exiting
    /// with the documented code; with `json`, the error is also printed as JSON on standard
    /// output (``ErrorJSON``).
    func run(json: Bool = false, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let exit as ExitCode {
            throw exit
        } catch var error as MoltError {
            if error.code == .migrationCancelled, let signal = Interrupts.receivedSignal {
                error.message += " (\(Interrupts.name(of: signal)) received)"
            }
            if json { try? Output.json(ErrorJSON(error)) }
            // What went wrong, then what to do (one line); the code, causes and every detail
            // with --verbose.
            if verbose {
                Output.error(error.detailedDescription)
            } else {
                // An upgrade stopped after some steps: where the store is now.
                let reached = error.storeVersion.map { "\n  the store is at: \($0)" } ?? ""
                Output.error(error.description + reached + (error.recovery.map { "\n  what to do: \($0)" } ?? ""))
            }
            throw ExitCode(ExitCodes.code(for: error))
        } catch {
            Output.error("internal error: \(error)")
            throw ExitCode(ExitCodes.internalError)
        }
    }
}

/// The log levels `--log-level` accepts.
enum LogLevel: String, CaseIterable, ExpressibleByArgument {
    case trace, debug, info, notice, warning, error, critical

    var level: Logger.Level { Logger.Level(rawValue: rawValue)! }
}

/// Installs a logging backend that writes to standard error, once per process.
enum LoggingBootstrap {
    nonisolated(unsafe) private static var done = false

    static func once(level: Logger.Level) {
        guard !done else { return }
        done = true
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
