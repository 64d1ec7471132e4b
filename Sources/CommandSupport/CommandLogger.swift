import Logging

/// Logs to standard error (debug and up when `verbose`, else info and up), labelled `flipbox`;
/// the one logging set-up of every command that runs the box or part of it.
public func makeLogger(verbose: Bool) -> Logger {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = verbose ? .debug : .info
        return handler
    }
    return Logger(label: "flipbox")
}
