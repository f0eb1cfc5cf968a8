import SystemKit
import TagCore

/// The `tagrouter` tool itself: its commands, in the order `tagrouter --help`
/// lists them, and that help, generated like each command's.
enum Tool {
    static var commands: [any Command.Type] {
        [
            RunCommand.self, StatusCommand.self, EventsCommand.self, ReloadCommand.self, CheckConfigCommand.self,
            TagsCommand.self, ReadCommand.self, WriteCommand.self, WatchCommand.self, DevicesCommand.self, DoctorCommand.self,
            DecodeCommand.self, EncodeCommand.self, SimulateCommand.self, DemoCommand.self,
        ]
    }

    static let version = tagrouterVersion

    /// `tagrouter --help`.
    static var usage: String {
        """
        tagrouter \(version) — NFC tag taps to actions

        \(Synopsis.usage(of: "tagrouter", [Synopsis(.word("<command>"), .optional(.word("options")))]))

        Commands:
        \(commands.map { "  " + $0.name.rightPadded(toLength: 14) + $0.summary }.joined(separator: "\n"))

        Run `tagrouter <command> --help` for the options of a command.
        """
    }
}
