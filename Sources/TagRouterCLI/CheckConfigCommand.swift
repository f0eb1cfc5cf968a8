import TagCore
import TagRouter
import TagRouterDaemon

/// `tagrouter check-config`: validates a config and prints its problems, or a
/// summary; with `--explain`, shows for one sample event every route with the
/// condition that matched or failed, and what each action would do.
enum CheckConfigCommand: Command {
    static let name = "check-config"
    static let summary = "validate a config file; --explain shows which routes an event matches"
    static let about = """
        Prints every problem as file:line:column: key: message (exit 65), or a
        summary of readers, routes and actions (exit 0). Without FILE it checks
        the file `run` would use. Warnings (file:line:column: warning: …) do not
        change the exit status: a secret not provided yet (a `*_file` that cannot
        be read, an unset {{env.NAME}}, which `run` needs), no routes, Home
        Assistant discovery with no route publishing what it announces.
        """
    static let explainOption = CommandOption("--explain", help: "for a sample event, show each route's verdict, condition by\ncondition, and what the actions would do (nothing is done)")
    static let eventOption = ValueOption<String?>("--event", placeholder: "JSON", help: "the sample event, as printed by `tagrouter watch --config FILE`")
    static let uriOption = ValueOption<String?>("--uri", placeholder: "URI", help: "a tag whose first record is this URI")
    static let textOption = ValueOption<String?>("--text", placeholder: "TEXT", help: "a tag with this Text record (after the URI, if both)")
    static let uidOption = ValueOption("--uid", default: TagUID(bytes: [0x04, 0xa2, 0x24, 0xb2, 0xc3, 0x5e, 0x80]), help: "the tag's UID")
    static let readerOption = ValueOption<String?>("--reader", placeholder: "NAME", whenAbsent: "the first configured", help: "the reader")
    static let tagTypeOption = ValueOption("--tag-type", placeholder: "TYPE", default: "ntag215", help: "the tag type")
    static let kindOption = ValueOption("--kind", default: TagEvent.Kind.tagArrived, help: "the event kind")
    static let referenceOption = CommandOption("--reference", help: "print the config reference (every key, type, default and\nmeaning) as Markdown: docs/guide/reference.md")
    static let referenceIndexOption = CommandOption("--reference-index", help: "print the README's index of that reference, one link per\ntop-level section")
    static let manOption = CommandOption("--man", help: "print that reference as the tagrouter.yaml(5) man page\n(roff: `tagrouter check-config --man | man -l -`)")
    static let options: [any DeclaredOption] = [explainOption, eventOption, uriOption, textOption, uidOption, readerOption, tagTypeOption, kindOption, referenceOption, referenceIndexOption, manOption]
    static let synopses = [
        Synopsis(.optional(.word("FILE"))),
        Synopsis(.optional(.word("FILE")), .option(explainOption), .optional(eventOption)),
        Synopsis(
            .optional(.word("FILE")), .option(explainOption), .optional(uriOption), .optional(textOption), .optional(uidOption), .optional(readerOption),
            .optional(tagTypeOption), .optional(kindOption)),
        Synopsis(.either([.option(referenceOption)], [.option(referenceIndexOption)], [.option(manOption)])),
    ]

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        // Documents made from the option specs, instead of checking a file.
        let documents: [(flag: CommandOption, render: (ConfigLoader) -> String)] = [
            (referenceOption, ReferenceTable.markdown),
            (referenceIndexOption, { ReferenceTable.index($0, page: "docs/guide/reference.md") }),
            (manOption, { ConfigManPage.roff($0) }),
        ]
        for document in documents where arguments.flag(document.flag) {
            try arguments.finish()
            print(document.render(ConfigLoader(registry: BuiltinPlugins.registry)), terminator: "")
            return
        }
        let explain = arguments.flag(explainOption)
        let sample = try CheckConfigSampleEvent(&arguments)
        let files = arguments.positionals()
        try arguments.finish()
        guard files.count <= 1 else { throw .usage("give one config file, not \(files.count)") }
        if !explain, let option = sample.given.first { throw .usage("\(option) goes with --explain") }

        let file = try ConfigFile.named(files.first)
        let config = try file.loadOrExit(ConfigLoader(registry: BuiltinPlugins.registry, dryRun: true, missingSecretsAreWarnings: true))
        if explain {
            let event = try sample.event(defaultReader: config.readers.first?.name ?? "reader")
            print(explanation(Router(config: config, dryRun: true).explain(event), event: event))
        } else {
            print(summary(config, file: file.name))
        }
    }

    static func summary(_ config: RouterConfig, file: String) -> String {
        var lines = ["\(file): OK"]
        lines.append("readers: \(config.readers.count)")
        for reader in config.readers { lines.append("  \(reader.name): \(reader.device)") }
        if !config.inputs.isEmpty {
            lines.append("inputs: \(config.inputs.count)")
            for input in config.inputs { lines.append("  \(input.path): \(input.kind)") }
        }
        lines.append("routes: \(config.routes.count)")
        for route in config.routes {
            let actions = route.actions.map(\.plugin).joined(separator: ", ")
            lines.append("  \(route.name): \(route.actions.count) action\(route.actions.count == 1 ? "" : "s") (\(actions))\(route.continues ? ", continue" : "")")
        }
        lines.append("actions: \(config.actions.count)")
        lines.append("tags: \(config.tags.entries.count)")
        lines.append("state_dir: \(config.stateDirectory)")
        return lines.joined(separator: "\n")
    }

    static func explanation(_ routes: [RouteExplanation], event: TagEvent) -> String {
        var lines = ["event: " + event.jsonText]
        var winner: String?
        for route in routes {
            let verdict: String
            if !route.tried {
                verdict = "not tried (route '\(winner ?? "")' matched first and does not say continue: true)"
            } else {
                verdict = route.matched ? "MATCH" : "no match"
            }
            lines.append("route \(route.route): \(verdict)")
            for condition in route.conditions { lines.append("  \(condition)") }
            for action in route.actions { lines.append("  → \(action)") }
            if route.matched { winner = route.route }
        }
        if routes.allSatisfy({ !$0.matched }) { lines.append("no route matches: nothing would be done") }
        return lines.joined(separator: "\n")
    }
}
