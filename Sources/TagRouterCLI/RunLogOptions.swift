import SystemKit
import Systemd

/// `--log-level` and `--log-format`, shared by `run` and `check-config`. Without
/// `--log-format`, a stderr that is the journal gets native journal entries.
enum RunLogOptions {
    static let logLevelOption = CommandOption("--log-level", value: "LEVEL", help: "debug, info (default), warning or error")
    static let logFormatOption = CommandOption("--log-format", value: "FORMAT", help: """
            human (default on a terminal) or json (one object per line; default otherwise);
            under systemd, entries go to the journal with READER=, TAG_UID=, ROUTE=… fields
            """)
    static let options = [logLevelOption, logFormatOption]

    static func apply(_ arguments: inout Arguments) throws(CLIError) {
        var level: Log.Level?
        var format: Log.Format?
        if let text = try arguments.value(of: logLevelOption) {
            guard let parsed = Log.Level(name: text) else { throw .usage("--log-level must be debug, info, warning or error, not '\(text)'") }
            level = parsed
        }
        if let text = try arguments.value(of: logFormatOption) {
            guard let parsed = Log.Format(rawValue: text) else { throw .usage("--log-format must be human or json, not '\(text)'") }
            format = parsed
        }
        Log.configure(level: level, format: format)
        JournalLog.installIfJournal(formatGiven: format != nil)
    }
}
