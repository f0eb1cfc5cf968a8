import TagRouter

/// The arguments of one subcommand, checked against its option table when made
/// (an option not in it is refused, with the closest name), then consumed as the
/// command asks for them: `flag`, `option`, `options`, then `finish` rejects
/// anything left over. Options are written `--name value` or `--name=value`.
struct Arguments {
    private var remaining: [String]
    /// Every name of the table: a command asking for another is a mistake in the command.
    private let declared: Set<String>

    init(_ arguments: some Sequence<String>, accepting table: [CommandOption]) throws(CLIError) {
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

    /// True when any of `names` is present (and removes it).
    mutating func flag(_ names: String...) -> Bool {
        assert(declared.isSuperset(of: names), "\(names) is not in the command's option table")
        var found = false
        remaining.removeAll { argument in
            let matches = names.contains(argument)
            found = found || matches
            return matches
        }
        return found
    }

    /// The value of the last occurrence of the option, or nil when absent.
    mutating func option(_ names: String...) throws(CLIError) -> String? {
        try taking(Set(names)).last?.value
    }

    /// Every value of a repeatable option, in order.
    mutating func options(_ names: String...) throws(CLIError) -> [String] {
        try taking(Set(names)).map(\.value)
    }

    /// Every occurrence of any of `names`, in command-line order, with the name used:
    /// for commands whose options build something in sequence (`encode --uri … --text …`).
    mutating func orderedOptions(_ names: Set<String>) throws(CLIError) -> [(name: String, value: String)] {
        try taking(names)
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

    private mutating func taking(_ names: Set<String>) throws(CLIError) -> [(name: String, value: String)] {
        assert(declared.isSuperset(of: names), "\(names) is not in the command's option table")
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
