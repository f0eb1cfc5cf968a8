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
        Usage: tagrouter watch [--device CONNSTRING [--name NAME] …] [--config FILE] [--if-busy exit|wait] [--exit-delay S] [--cooldown S]
                               [--ignore-on-connect] [--polling auto-poll|list-passive|fast]

        Prints every event of the readers (reader.connected, tag.arrived, tag.removed,
        reader.disconnected, reader.error) as one JSON object per line until interrupted.
        A line can be pasted into `tagrouter check-config --explain --event '…'`; for its
        `reader` to match your routes' `reader:` conditions, watch with --config (the
        readers and names of that file) or name the reader with --name. With --config,
        a tag's SUN message is checked with the file's `sun:` keys (`tag.sun`), as
        --explain does: against the counters the daemon accepted, without counting.
        """
    static let nameOption = CommandOption("--name", value: "NAME", help: "the reader's name in the events (default: its connstring);\none per --device, in the same order")
    static let configOption = CommandOption("--config", "-c", value: "FILE", help: "watch the readers of this config, with their names and settings")
    static let exitDelayOption = CommandOption("--exit-delay", value: "S", help: "a tag missing this long is removed (default 0.5)")
    static let cooldownOption = CommandOption("--cooldown", value: "S", help: "the same tag returning within this is not reported (default 0)")
    static let ignoreOnConnectOption = CommandOption("--ignore-on-connect", help: "tags already lying on a reader when it connects do not fire")
    static let pollingOption = CommandOption("--polling", value: "MODE", help: "auto-poll (default; the PN532 polls, no CPU), list-passive,\nor fast (a tag seen within milliseconds, for steady bus traffic)")
    static let options = ReaderOptions.options(multiple: true) + [nameOption, configOption, exitDelayOption, cooldownOption, ignoreOnConnectOption, pollingOption]

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let reader = try ReaderOptions(&arguments, multiple: true)
        let names = try arguments.values(of: nameOption)
        let configFile = try arguments.value(of: configOption)
        let exitDelay = try ReaderOptions.seconds(of: exitDelayOption, in: &arguments)
        let cooldown = try ReaderOptions.seconds(of: cooldownOption, in: &arguments)
        let ignoreOnConnect = arguments.flag(ignoreOnConnectOption)
        let pollingName = try arguments.value(of: pollingOption)
        let polling = try pollingName.map { name throws(CLIError) in
            guard let polling = ReaderConfig.Polling(rawValue: name) else { throw .usage("--polling takes auto-poll, list-passive or fast, not '\(name)'") }
            return polling
        }
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
                (config.cooldown, config.ifBusy) = (.zero, reader.ifBusy)
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
