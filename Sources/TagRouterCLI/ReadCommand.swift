import OrderedJSON
import SystemKit
import TagCore
import TagRouter
import TagRouterDaemon

/// `tagrouter read`: read the tag on a reader and print its event JSON
enum ReadCommand: Command {
    static let name = "read"
    static let summary = "read the tag on a reader and print its event JSON"
    static let about = """
        Reads the tag lying on the reader, or waits for one, prints its tag.arrived
        event as one line of JSON and exits. Exit status 1 when no tag arrives in time,
        or at once when the reader cannot be opened (with the reason).

        When a running daemon answers on the control socket and runs the reader, the
        read goes through it: its reader reads the tag lying there again (or the next
        one placed, which is then not routed as a tap).
        """
    static let waitOption = CommandOption("--wait", help: "wait (up to the timeout) for a reader that cannot be opened yet")
    static let configOption = ValueOption<String?>("--config", "-c", placeholder: "FILE", help: "check a SUN message with this config's `sun:` keys (`tag.sun`), as\n--explain does: against the counters the daemon accepted, not counted")
    static let options: [any DeclaredOption] = ReaderOptions.options(multiple: false) + DaemonTagJob.options + [ReaderOptions.timeoutOption, waitOption, configOption]
    static let synopses = [
        Synopsis(parts: DaemonTagJob.synopsisParts + [.optional(waitOption), .optional(configOption)])
    ]

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let reader = try ReaderOptions(&arguments, multiple: false)
        let timeout = try arguments.value(of: ReaderOptions.timeoutOption)
        let wait = arguments.flag(waitOption)
        let readerName = try arguments.value(of: DaemonTagJob.readerOption)
        let direct = arguments.flag(DaemonTagJob.directOption)
        let configFile = try arguments.value(of: configOption)
        let control = try ControlOption.clientPath(&arguments)
        try arguments.finish()
        var checked: @Sendable (TagEvent) -> TagEvent = { $0 }
        if let configFile {
            checked = try ConfigFile.named(configFile).loadOrExit(ConfigLoader(registry: BuiltinPlugins.registry, dryRun: true, missingSecretsAreWarnings: true)).sunPreview
        }
        if !direct, let reply = try DaemonTagJob.ask(
            "read", JSONObject(["present": true]), control: control, reader: readerName, device: reader.given ? reader.devices[0] : nil, timeout: timeout)
        {
            let json = reply["event"] ?? reply
            let event = configFile == nil ? nil : try? TagEvent(json: json)
            print(TerminalText.escaped(event.map(checked)?.jsonText ?? json.serialized()))
            return
        }
        let device = wait || reader.ifBusy == .wait ? reader.devices[0] : try ReaderOptions.opening(reader.devices[0], hint: "(--wait waits for the reader to appear)")
        let event = try await ReaderOptions.firstTag(device: device, timeout: timeout, ifBusy: reader.ifBusy)
        print(TerminalText.escaped(checked(event).jsonText))
    }
}
