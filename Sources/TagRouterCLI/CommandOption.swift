import SystemKit

/// One command-line option of a command as every generated text sees it: its
/// names, what its value is (nil for a flag), its help and the heading it is
/// listed under. A flag is declared as one of these; an option with a value is a
/// typed `ValueOption`, which fills in `value` from its type and default.
/// `Arguments` parses against a command's table of these; its usage line, `--help`,
/// the man page and the bash completion are generated from them.
struct CommandOption: DeclaredOption, Equatable {
    /// `--config` first, then any alias (`-c`).
    let names: [String]
    /// What its value is; nil when the option is a flag.
    let value: OptionValueShape?
    /// What it does, lines broken where they should be (continuations are indented under the first).
    /// Defaults and choices are not written here: they come from the value's declaration.
    let help: String
    /// The heading of the block it is listed in.
    private(set) var group: String

    /// A flag: present or not.
    init(_ names: String..., help: String, group: String = "Options") {
        self.init(names: names, value: nil, help: help, group: group)
    }

    /// An option whose value is text, checked by the command.
    init(_ names: String..., value placeholder: String, help: String, group: String = "Options") {
        self.init(names: names, value: OptionValueShape(String.self, placeholder: placeholder, shownDefault: nil, repeats: false), help: help, group: group)
    }

    init(names: [String], value: OptionValueShape?, help: String, group: String) {
        self.names = names
        self.value = value
        self.help = help
        self.group = group
    }

    var declaration: CommandOption { self }

    /// The same option: its names are its identity (a table may list it under another heading).
    static func == (lhs: CommandOption, rhs: CommandOption) -> Bool { lhs.names == rhs.names }

    /// The same option under another heading.
    func listed(under group: String) -> CommandOption {
        var option = self
        option.group = group
        return option
    }

    /// The option as usage and help show it: `--timeout DURATION`, `--if-busy exit|wait`.
    var label: String { ([names[0]] + (value.map { [$0.label] } ?? [])).joined(separator: " ") }

    /// The help as `--help` lists it: the declared lines, then the choices when the
    /// label cannot show them, and the default at the end of the last line.
    var renderedHelp: String {
        var lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let value, !value.choices.isEmpty, !value.showsChoices {
            lines += ("\(value.placeholder): " + value.choices.joined(separator: ", ")).wrapped(width: Self.helpWidth).split(separator: "\n").map(String.init)
        }
        if let shown = value?.shownDefault {
            let suffix = "(default: \(shown))"
            let fits = lines[lines.count - 1].count + 1 + (suffix.split(separator: "\n").first?.count ?? 0) <= Self.helpWidth
            if fits { lines[lines.count - 1] += " " + suffix } else { lines.append(suffix) }
        }
        return lines.joined(separator: "\n")
    }

    /// The widest a line of an option's help is made by adding its default.
    static let helpWidth = 76

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
                let help = option.renderedHelp.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                let indent = String(repeating: " ", count: column + 2)
                let first = option.label.count < column ? ["  " + option.label.rightPadded(toLength: column) + help[0]] : ["  " + option.label, indent + help[0]]
                return first + help.dropFirst().map { indent + $0 }
            }
            return ([group.title + ":"] + lines).joined(separator: "\n")
        }.joined(separator: "\n\n")
    }
}

/// Anything a command's option table lists: a flag (`CommandOption`) or a typed `ValueOption`.
protocol DeclaredOption: Sendable {
    /// The option as parsing and the generated texts see it.
    var declaration: CommandOption { get }
}
