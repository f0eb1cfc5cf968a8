import TagRouter

/// The arguments of one subcommand, checked against its option table when made
/// (an option not in it is refused, with the closest name), then consumed as the
/// command asks for them — by the table's own declarations, so each name is
/// written once: `flag`, `value(of:)` (typed, through the option's `ValueOption`),
/// then `finish` rejects anything left over. Options are written `--name value` or `--name=value`.
struct Arguments {
    private var remaining: [String]
    /// Every name of the table: a command asking for another is a mistake in the command.
    private let declared: Set<String>

    init(_ arguments: some Sequence<String>, accepting options: [any DeclaredOption]) throws(CLIError) {
        let table = options.map(\.declaration)
        remaining = Array(arguments)
        declared = Set(table.flatMap(\.names))
        var index = 0
        while index < remaining.count {
            let argument = remaining[index]
            index += 1
            guard argument.hasPrefix("-"), argument != "-" else { continue }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            guard let option = table.first(where: { $0.names.contains(name) }) else {
                guard argument.hasPrefix("--") else { continue }
                let names = table.flatMap(\.names)
                throw .usage("unknown argument '\(argument)'" + (DidYouMean.suggestion(for: name, among: names).map { " (did you mean \($0)?)" } ?? ""))
            }
            if option.value == nil, name != argument { throw .usage("\(name) takes no value") }
            if option.value != nil, name == argument { index += 1 }
        }
    }

    /// True when the flag is present (and removes it).
    mutating func flag(_ option: CommandOption) -> Bool {
        assertDeclared([option])
        var found = false
        remaining.removeAll { argument in
            let matches = option.names.contains(argument)
            found = found || matches
            return matches
        }
        return found
    }

    /// True when the option is on the command line (it is not taken).
    func isGiven(_ option: any DeclaredOption) -> Bool {
        let names = option.declaration.names
        return remaining.contains { argument in names.contains { argument == $0 || argument.hasPrefix($0 + "=") } }
    }

    /// The option's value: the one given, else its default (nil, or none for a repeatable one).
    mutating func value<Value>(of option: ValueOption<Value>) throws(CLIError) -> Value {
        try option.value(from: taking([option.declaration]).map(\.value))
    }

    /// The value of the option's last occurrence, or nil when absent.
    mutating func value(of option: CommandOption) throws(CLIError) -> String? {
        try taking([option]).last?.value
    }

    /// Every value of a repeatable option, in order.
    mutating func values(of option: CommandOption) throws(CLIError) -> [String] {
        try taking([option]).map(\.value)
    }

    /// Every occurrence of any of `options`, in command-line order, with the name used:
    /// for commands whose options build something in sequence (`encode --uri … --text …`).
    mutating func orderedValues(of options: [CommandOption]) throws(CLIError) -> [(option: CommandOption, value: String)] {
        try taking(options).map { taken in (options.first { $0.names.contains(taken.name) }!, taken.value) }
    }

    /// The arguments that are not options, after every option has been taken.
    mutating func positionals() -> [String] {
        let found = remaining.filter { !$0.hasPrefix("--") || $0 == "-" }
        remaining.removeAll { !$0.hasPrefix("--") || $0 == "-" }
        return found
    }

    /// Fails on any argument no one asked for.
    func finish() throws(CLIError) {
        if let unknown = remaining.first {
            throw .usage("unknown argument '\(unknown)'")
        }
    }

    /// An option the command reads must be one of its table: a mistake in the command, not in the arguments.
    private func assertDeclared(_ options: [CommandOption]) {
        assert(options.allSatisfy { declared.isSuperset(of: $0.names) }, "\(options.map(\.label)) is not in the command's option table")
    }

    private mutating func taking(_ options: [CommandOption]) throws(CLIError) -> [(name: String, value: String)] {
        assertDeclared(options)
        let names = Set(options.flatMap(\.names))
        var found: [(name: String, value: String)] = []
        var kept: [String] = []
        var index = 0
        while index < remaining.count {
            let argument = remaining[index]
            if let equals = argument.firstIndex(of: "="), names.contains(String(argument[..<equals])) {
                found.append((String(argument[..<equals]), String(argument[argument.index(after: equals)...])))
            } else if names.contains(argument) {
                guard index + 1 < remaining.count else { throw .usage("\(argument) needs a value") }
                found.append((argument, remaining[index + 1]))
                index += 1
            } else {
                kept.append(argument)
            }
            index += 1
        }
        remaining = kept
        return found
    }
}
