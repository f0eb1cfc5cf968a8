@preconcurrency import Glibc
import SystemKit
import TagCore
import TagReader
import TagRouterDaemon

/// The reader options `read`, `write` and `watch` share: which device, and the
/// scan settings a user may want to see the effect of.
struct ReaderOptions {
    /// `--device` and `--if-busy`; `--device` may be repeated when `multiple`.
    static func options(multiple: Bool) -> [CommandOption] {
        [deviceOption(multiple: multiple), ifBusyOption]
    }

    /// `--device`, whose help says it repeats when `multiple`.
    static func deviceOption(multiple: Bool) -> CommandOption {
        CommandOption("--device", value: "CONNSTRING", help: """
            which reader (default: auto): \(BuiltinPlugins.readers.deviceHelp)
            """.wrapped(width: 72) + (multiple ? "\n(repeat it to watch several readers)" : ""))
    }

    static let ifBusyOption = CommandOption("--if-busy", value: "exit|wait", help: """
        when another process (a running daemon) holds the device: exit 1
        saying which pid (default), or wait for it
        """)

    /// How long `read` and `write` wait for a tag unless `--timeout` says otherwise.
    static let tagWait: Duration = .seconds(30)

    /// `--timeout SECONDS` of `read` and `write`.
    static let timeoutOption = CommandOption("--timeout", value: "SECONDS", help: "how long to wait for a tag (default \(tagWait.components.seconds))")

    var devices: [String]
    var ifBusy: ReaderConfig.BusyPolicy
    /// False when no `--device` was given (and `devices` is `["auto"]`).
    var given: Bool

    /// Takes `--device` (repeatable when `multiple`) and `--if-busy`.
    init(_ arguments: inout Arguments, multiple: Bool) throws(CLIError) {
        devices = try arguments.values(of: Self.deviceOption(multiple: multiple))
        given = !devices.isEmpty
        if devices.isEmpty { devices = ["auto"] }
        if !multiple, devices.count > 1 { throw .usage("--device is given more than once") }
        let policy = try arguments.value(of: Self.ifBusyOption) ?? ReaderConfig.BusyPolicy.exit.rawValue
        guard let ifBusy = ReaderConfig.BusyPolicy(rawValue: policy) else { throw .usage("--if-busy takes exit or wait, not '\(policy)'") }
        self.ifBusy = ifBusy
    }

    /// Takes a non-negative number of seconds (`--timeout 2.5`); nil when the option is absent.
    static func seconds(of option: CommandOption, in arguments: inout Arguments) throws(CLIError) -> Duration? {
        guard let text = try arguments.value(of: option) else { return nil }
        guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
            throw .usage("\(option.names[0]) takes a number of seconds, not '\(text)'")
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// The connstring of `device` (`auto` resolved) after opening it once, or a
    /// failure saying why it does not open — what `tagrouter devices` would say —
    /// and `hint`, what else the user may do.
    static func opening(_ device: String, hint: String? = nil) throws(CLIError) -> String {
        switch BuiltinPlugins.readers.driver(for: device).opening(device) {
        case .success(let opened): return opened
        case .failure(let failure): throw .runtime((failure.lines + (hint.map { [$0] } ?? [])).joined(separator: "\n"))
        }
    }

    /// "Hold a tag to … (Ctrl-C to stop)…" on stderr, when a person is watching it.
    static func promptForTag(on device: String) {
        guard isatty(STDERR_FILENO) == 1 else { return }
        printToStderr("Hold a tag to \(device == "auto" ? "the reader" : device) (Ctrl-C to stop)…")
    }

    /// Waits for the first `tag.arrived` on one reader (a tag already lying there
    /// counts), or fails with a message saying whether the reader ever opened.
    static func firstTag(device: String, timeout: Duration, ifBusy: ReaderConfig.BusyPolicy) async throws(CLIError) -> TagEvent {
        var reader = ReaderConfig.withDefaults(name: device, device: device)
        (reader.cooldown, reader.exitDelay, reader.ifBusy) = (.zero, .zero, ifBusy)
        let supervisor = ReaderSupervisor(readers: [reader], drivers: BuiltinPlugins.readers)
        let timer = Task {
            try? await Task.sleep(for: timeout)
            supervisor.stop()
        }
        defer {
            timer.cancel()
            supervisor.stop()
        }
        var connected = false
        var problem: String?
        for await event in supervisor.events {
            switch event.kind {
            case .tagArrived: return event
            case .readerConnected:
                connected = true
                promptForTag(on: device)
            case .readerError, .readerDisconnected: problem = event.message
            case .tagRemoved, .tagHeld, .tagTapped, .readerWaiting: break
            }
        }
        guard connected else {
            throw .runtime("could not open the reader '\(device)'\(problem.map { " (\($0))" } ?? ""); `tagrouter devices` says why")
        }
        throw .runtime("no tag arrived on '\(device)' within \(timeout / .seconds(1)) s")
    }
}
