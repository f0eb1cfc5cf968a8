/// One subcommand of the `tagrouter` tool. `main` finds it by `name`, prints
/// `usage` for `--help`, and otherwise hands it the remaining arguments.
protocol Command {
    static var name: String { get }
    /// One line for the command list of `tagrouter --help`.
    static var summary: String { get }
    /// The full help text: synopsis, options, examples.
    static var usage: String { get }
    static func run(_ arguments: Arguments) async throws(CLIError)
}
