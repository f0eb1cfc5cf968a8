@preconcurrency import Glibc
import SystemKit
import TagCore
import TagReader
import TagRouterDaemon

/// The reader options `read`, `write` and `watch` share: which device, and the
/// scan settings a user may want to see the effect of.
struct ReaderOptions {
    /// `--device` and `--if-busy`; `--device` may be repeated when `multiple`.
    static func options(multiple: Bool) -> [any DeclaredOption] {
        [multiple ? devicesOption : deviceOption, ifBusyOption]
    }

    /// Which reader: `--device` of `read` and `write`.
    static let deviceOption = ValueOption<String?>("--device", placeholder: "CONNSTRING", whenAbsent: "auto", help: deviceHelp)

    /// Which readers: `--device` of `watch`, repeatable.
    static let devicesOption = ValueOption<[String]>(
        "--device", placeholder: "CONNSTRING", whenAbsent: "auto", help: deviceHelp + "\n(repeat it to watch several readers)")

    private static var deviceHelp: String {
        "which reader: \(BuiltinPlugins.readers.deviceHelp)".wrapped(width: 72)
    }

    static let ifBusyOption = ValueOption("--if-busy", default: ReaderConfig.BusyPolicy.exit, help: """
        when another process (a running daemon) holds the device: exit 1
        saying which pid, or wait for it
        """)

    /// `--timeout` of `read` and `write`: how long they wait for a tag.
    static let timeoutOption = ValueOption("--timeout", default: Duration.seconds(30), help: "how long to wait for a tag")

    var devices: [String]
    var ifBusy: ReaderConfig.BusyPolicy
    /// False when no `--device` was given (and `devices` is `["auto"]`).
    var given: Bool

    /// Takes `--device` (repeatable when `multiple`) and `--if-busy`.
    init(_ arguments: inout Arguments, multiple: Bool) throws(CLIError) {
        devices = multiple ? try arguments.value(of: Self.devicesOption) : (try arguments.value(of: Self.deviceOption)).map { [$0] } ?? []
        given = !devices.isEmpty
        if devices.isEmpty { devices = ["auto"] }
        ifBusy = try arguments.value(of: Self.ifBusyOption)
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
