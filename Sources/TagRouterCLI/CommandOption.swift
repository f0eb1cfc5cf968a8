/// One command-line option of a command, declared once: its names, the name of
/// its value (nil for a flag), its help and the heading it is listed under.
/// `Arguments` parses against a command's table of these, `--help` lists them,
/// and the man page and bash completion are generated from them.
struct CommandOption: Sendable, Equatable {
    /// `--config` first, then any alias (`-c`).
    let names: [String]
    /// `FILE`, `SECONDS`, … ; nil when the option is a flag.
    let value: String?
    /// What it does, lines broken where they should be (continuations are indented under the first).
    let help: String
    /// The heading of the block it is listed in.
    private(set) var group: String

    init(_ names: String..., value: String? = nil, help: String, group: String = "Options") {
        self.names = names
        self.value = value
        self.help = help
        self.group = group
    }

    /// The same option: its names are its identity (a table may list it under another heading).
    static func == (lhs: CommandOption, rhs: CommandOption) -> Bool { lhs.names == rhs.names }

    /// The same option under another heading.
    func listed(under group: String) -> CommandOption {
        var option = self
        option.group = group
        return option
    }

    /// The option as the help lists it: `--timeout SECONDS`.
    var label: String { ([names[0]] + (value.map { [$0] } ?? [])).joined(separator: " ") }

    /// The "Options:" blocks of a help text: one per group, in table order, with
    /// the help in one column (a label too long for it gets a line of its own).
    static func helpText(_ options: [CommandOption]) -> String {
        var groups: [(title: String, options: [CommandOption])] = []
        for option in options {
            if groups.last?.title == option.group { groups[groups.count - 1].options.append(option) } else { groups.append((option.group, [option])) }
        }
        return groups.map { group in
            let column = min(22, group.options.map(\.label.count).max() ?? 0) + 3
            let lines = group.options.flatMap { option in
                let help = option.help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                let indent = String(repeating: " ", count: column + 2)
                let first = option.label.count < column ? ["  " + option.label.rightPadded(toLength: column) + help[0]] : ["  " + option.label, indent + help[0]]
                return first + help.dropFirst().map { indent + $0 }
            }
            return ([group.title + ":"] + lines).joined(separator: "\n")
        }.joined(separator: "\n\n")
    }
}
