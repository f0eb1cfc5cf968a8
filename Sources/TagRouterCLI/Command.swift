/// One subcommand of the `tagrouter` tool. `main` finds it by `name`, prints
/// `usage` for `--help`, and otherwise hands it the arguments, parsed against `options`.
protocol Command {
    static var name: String { get }
    /// One line for the command list of `tagrouter --help`.
    static var summary: String { get }
    /// The help between the usage lines and the options: what the command does.
    static var about: String { get }
    /// Every option the command takes, in the order its help lists them.
    static var options: [any DeclaredOption] { get }
    /// The forms of its usage line, made of its options (default: one, every option optional).
    static var synopses: [Synopsis] { get }
    /// The help after the options: exit status, examples ("" for none).
    static var epilogue: String { get }
    static func run(_ arguments: Arguments) async throws(CLIError)
}

extension Command {
    static var epilogue: String { "" }

    static var synopses: [Synopsis] { [.every(options)] }

    /// The options' declarations, as parsing and the generated texts take them.
    static var declarations: [CommandOption] { options.map(\.declaration) }

    /// The usage lines, generated from `synopses`.
    static var usageLines: String { Synopsis.usage(of: "tagrouter \(name)", synopses) }

    /// The full help text: the usage lines, `about`, the options from the table, `epilogue`.
    static var usage: String {
        ((about.hasPrefix("Usage:") ? [] : [usageLines]) + [about] + (options.isEmpty ? [] : [CommandOption.helpText(declarations)]) + (epilogue.isEmpty ? [] : [epilogue])).joined(separator: "\n\n")
    }
}
