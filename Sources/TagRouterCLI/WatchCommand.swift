import SystemKit
import TagCore
import TagReader
import TagRouter
import TagRouterDaemon

/// `tagrouter watch`: print every reader and tag event as JSON lines
enum WatchCommand: Command {
    static let name = "watch"
    static let summary = "print every reader and tag event as JSON lines"
    static let about = """
        Prints every event of the readers (reader.connected, tag.arrived, tag.removed,
        reader.disconnected, reader.error) as one JSON object per line until interrupted.
        A line can be pasted into `tagrouter check-config --explain --event '…'`; for its
        `reader` to match your routes' `reader:` conditions, watch with --config (the
        readers and names of that file) or name the reader with --name. With --config,
        a tag's SUN message is checked with the file's `sun:` keys (`tag.sun`), as
        --explain does: against the counters the daemon accepted, without counting.
        """
    /// A reader's settings where neither the command line nor a config sets them.
    private static let readerDefaults = ReaderConfig.withDefaults(name: "", device: "")
    /// Without --config every return of a tag is shown: the config's cooldown would hide some.
    private static let cooldownWithoutConfig = Duration.zero
    static let nameOption = ValueOption<[String]>(
        "--name", placeholder: "NAME", whenAbsent: "its connstring", help: "the reader's name in the events; one per --device, in the same order")
    static let configOption = ValueOption<String?>("--config", "-c", placeholder: "FILE", help: "watch the readers of this config, with their names and settings")
    static let exitDelayOption = ValueOption<Duration?>(
        "--exit-delay", whenAbsent: "\(readerDefaults.exitDelay.configText), or the config's exit_delay", help: "a tag missing this long is removed")
    static let cooldownOption = ValueOption<Duration?>(
        "--cooldown", whenAbsent: "\(cooldownWithoutConfig.configText), or the config's cooldown", help: "the same tag returning within this is not reported")
    static let ignoreOnConnectOption = CommandOption("--ignore-on-connect", help: "tags already lying on a reader when it connects do not fire")
    static let pollingOption = ValueOption<ReaderConfig.Polling?>(
        "--polling", whenAbsent: "\(readerDefaults.polling.rawValue), or the config's polling",
        help: "how the reader looks for tags: auto-poll lets the PN532 poll (no CPU);\nfast sees a tag within milliseconds, for steady bus traffic")
    static let options: [any DeclaredOption] =
        ReaderOptions.options(multiple: true) + [nameOption, configOption, exitDelayOption, cooldownOption, ignoreOnConnectOption, pollingOption]
    static let synopses = [
        Synopsis(
            .optional(.option(ReaderOptions.devicesOption), .optional(nameOption)), .optional(configOption), .optional(ReaderOptions.ifBusyOption),
            .optional(exitDelayOption), .optional(cooldownOption), .optional(ignoreOnConnectOption), .optional(pollingOption))
    ]

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let reader = try ReaderOptions(&arguments, multiple: true)
        let names = try arguments.value(of: nameOption)
        let configFile = try arguments.value(of: configOption)
        let exitDelay = try arguments.value(of: exitDelayOption)
        let cooldown = try arguments.value(of: cooldownOption)
        let ignoreOnConnect = arguments.flag(ignoreOnConnectOption)
        let polling = try arguments.value(of: pollingOption)
        try arguments.finish()

        var configs: [ReaderConfig]
        var checked: @Sendable (TagEvent) -> TagEvent = { $0 }
        if let configFile {
            guard !reader.given, names.isEmpty else { throw .usage("--config watches the readers of the file; leave out --device and --name") }
            let file = try ConfigFile.named(configFile)
            let config = try file.loadOrExit(ConfigLoader(registry: BuiltinPlugins.registry, dryRun: true, missingSecretsAreWarnings: true))
            configs = config.readers
            checked = config.sunPreview
        } else {
            guard names.isEmpty || names.count == reader.devices.count else {
                throw .usage("give one --name per --device (\(reader.devices.count) devices, \(names.count) names)")
            }
            configs = zip(reader.devices, names.isEmpty ? reader.devices : names).map { device, name in
                var config = ReaderConfig.withDefaults(name: name, device: device)
                (config.cooldown, config.ifBusy) = (cooldownWithoutConfig, reader.ifBusy)
                return config
            }
        }
        for index in configs.indices {
            configs[index].readsSignature = true  // watch shows the whole tag, whatever the file's routes use
            if let exitDelay { configs[index].exitDelay = exitDelay }
            if let cooldown { configs[index].cooldown = cooldown }
            if ignoreOnConnect { configs[index].ignoreOnConnect = true }
            if let polling { configs[index].polling = polling }
        }
        let supervisor = ReaderSupervisor(readers: configs, drivers: BuiltinPlugins.readers)
        var lastError: String?
        for await event in supervisor.events {
            print(TerminalText.escaped(checked(event).jsonText))
            if event.kind == .readerError { lastError = event.message }
        }
        // Readers only end by themselves when they give up on a busy device.
        throw .runtime(lastError ?? "every reader stopped")
    }
}
