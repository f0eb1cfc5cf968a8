/// One subcommand of the `tagrouter` tool. `main` finds it by `name`, prints
/// `usage` for `--help`, and otherwise hands it the arguments, parsed against `options`.
protocol Command {
    static var name: String { get }
    /// One line for the command list of `tagrouter --help`.
    static var summary: String { get }
    /// The help before the options: synopsis and what the command does.
    static var about: String { get }
    /// Every option the command takes, in the order its help lists them.
    static var options: [CommandOption] { get }
    /// The help after the options: exit status, examples ("" for none).
    static var epilogue: String { get }
    static func run(_ arguments: Arguments) async throws(CLIError)
}

extension Command {
    static var epilogue: String { "" }

    /// The full help text: `about`, the options from the table, `epilogue`.
    static var usage: String {
        ([about] + (options.isEmpty ? [] : [CommandOption.helpText(options)]) + (epilogue.isEmpty ? [] : [epilogue])).joined(separator: "\n\n")
    }
}
