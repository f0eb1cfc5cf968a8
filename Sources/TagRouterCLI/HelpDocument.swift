/// What the hidden `tagrouter help --man` and `tagrouter help --bash-completion`
/// print: the man page and the bash completion script, both generated from the
/// command table and each command's option table, so neither can drift from the
/// tool. `scripts/install-files.sh` installs their output.
enum HelpDocument: String, CaseIterable {
    case manPage = "--man"
    case bashCompletion = "--bash-completion"

    /// The document, for `commands` (the command table) and the tool's own `--help` text.
    func render(commands: [any Command.Type], toolUsage: String, version: String) -> String {
        switch self {
        case .manPage: return ManPage(commands: commands, toolUsage: toolUsage, version: version).roff
        case .bashCompletion: return BashCompletion(commands: commands).script
        }
    }
}
