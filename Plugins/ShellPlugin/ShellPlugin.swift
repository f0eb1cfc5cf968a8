import ChildProcess
import OrderedJSON
import SystemKit
import TagRouter

/// The `shell` action: runs a command for each event. The list form
/// (`command: [argv…]`) templates each element and runs the program directly;
/// the string form (`- shell: "…"`) runs `/bin/sh -c` with the string exactly
/// as written, so tag contents can reach it only through `TAG_*` variables.
public struct ShellPlugin: ActionPlugin {
    public static let name = "shell"

    public static let sectionSpec: OptionSpec? = OptionSpec("limits shared by every shell action", [
        Option("max_concurrent", .int(1...1000), default: "4", "commands running at once across all shell actions; more wait their turn"),
    ])

    public static let actionSpec = OptionSpec("run a command for each event", scalarOption: "script", [
        Option("command", .list(.template), "the program and its arguments; each element is templated on its own and passed verbatim (no shell)"),
        Option("script", .string, "a shell script run by `/bin/sh -c`, NOT templated: read the event from `$TAG_*` or stdin"),
        Option("timeout", .duration, default: "30s", "then the whole process group gets SIGTERM, and SIGKILL 2 s later"),
        Option("cwd", .string, "the directory it runs in (relative to the config file); default: the daemon's"),
        Option("env", .map(.template), "more environment variables, each value templated"),
    ])

    private let limit: ConcurrencyLimit
    private let context: PluginContext

    public init(section: ConfigValue, context: PluginContext) throws(ConfigErrors) {
        limit = ConcurrencyLimit(section.int("max_concurrent"))
        self.context = context
    }

    public func makeAction(_ options: ConfigValue, route: String) throws(ConfigErrors) -> any Action {
        let program: ShellAction.Program
        switch (options.optionalTemplates("command"), options.optionalString("script")) {
        case (let command?, nil):
            guard !command.isEmpty else { throw options.error("command", "the command is empty: give the program as the first element") }
            program = .argv(command)
        case (nil, let script?):
            if script.contains("{{") {
                Log.warning("shell: the string form is not templated; read tag values from $TAG_* or stdin, or use command: [...]", JSONObject([
                    "at": .string(options.mark.description), "route": .string(route),
                ]))
            }
            program = .script(script)
        case (.some, .some):
            throw options.error(nil, "give either 'command' (a list, no shell) or 'script' (a string for /bin/sh -c), not both")
        case (nil, nil):
            throw options.error(nil, "say what to run: 'command: [program, arg…]' or a script string")
        }
        let directory = options.optionalString("cwd").map(context.config.resolve)
        if let directory, let problem = ChildCommand.problem(withWorkingDirectory: directory) { throw options.error("cwd", problem.description) }
        return ShellAction(
            program: program, route: route, timeout: options.duration("timeout"),
            workingDirectory: directory,
            environment: options.entries("env").compactMap { entry in entry.value.templateValue.map { (entry.key, $0) } },
            retryOnFailure: options.has("retry"), limit: limit)
    }
}
