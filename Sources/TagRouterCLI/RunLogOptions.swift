import SystemKit
import Systemd

/// `--log-level` and `--log-format` of `run`. Without
/// `--log-format`, a stderr that is the journal gets native journal entries.
enum RunLogOptions {
    static let logLevelOption = ValueOption("--log-level", default: Logger().level, help: "the least important entries logged")
    static let logFormatOption = ValueOption<Log.Format?>(
        "--log-format", whenAbsent: "human on a terminal, else json;\nunder systemd, journal entries with READER=, TAG_UID=, ROUTE=… fields",
        help: "human text, or json: one object per line")
    static let options: [any DeclaredOption] = [logLevelOption, logFormatOption]

    static func apply(_ arguments: inout Arguments) throws(CLIError) {
        let level = try arguments.value(of: logLevelOption)
        let format = try arguments.value(of: logFormatOption)
        Log.configure(level: level, format: format)
        JournalLog.installIfJournal(formatGiven: format != nil)
    }
}
