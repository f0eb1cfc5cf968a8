/// What the hidden `tagrouter help --man` and `tagrouter help --bash-completion`
/// print: the man page and the bash completion script, both generated from the
/// command table and each command's help text, so neither can drift from the
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

/// The options a help text mentions (`--device`, `--log-level`, …), in order of first mention.
func optionNames(inHelp text: String) -> [String] {
    var names: [String] = []
    var rest = Substring(text)
    while let start = rest.firstRange(of: "--") {
        let name = rest[start.lowerBound...].prefix { $0 == "-" || $0.isLowercase || $0.isNumber }
        if name.count > 2, !name.hasSuffix("-"), !names.contains(String(name)) { names.append(String(name)) }
        rest = rest[start.upperBound...]
    }
    return names
}
