import TagCore
import TagReader

/// The reader options `read`, `write` and `watch` share: which device, and the
/// scan settings a user may want to see the effect of.
struct ReaderOptions {
    static let usage = """
          --device CONNSTRING   a libnfc connstring (pn532_uart:/dev/ttyUSB0, acr122_usb, …;
                                a path may be a symlink) or `auto` (default: the first reader found),
                                or a PC/SC reader: pcsc:auto or pcsc:<name glob> ('pcsc:*ACR1252*')
        """

    var devices: [String]

    /// Takes `--device` (repeatable when `multiple`).
    init(_ arguments: inout Arguments, multiple: Bool) throws(CLIError) {
        devices = try arguments.options("--device")
        if devices.isEmpty { devices = ["auto"] }
        if !multiple, devices.count > 1 { throw .usage("--device is given more than once") }
    }

    /// Reads a non-negative number of seconds (`--timeout 2.5`).
    static func seconds(_ text: String?, option: String, default value: Duration) throws(CLIError) -> Duration {
        guard let text else { return value }
        guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
            throw .usage("\(option) takes a number of seconds, not '\(text)'")
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// Waits for the first `tag.arrived` on one reader (a tag already lying there
    /// counts), or fails with a message saying whether the reader ever opened.
    static func firstTag(device: String, timeout: Duration) async throws(CLIError) -> TagEvent {
        let supervisor = ReaderSupervisor(readers: [ReaderConfig(name: device, device: device, cooldown: .zero, exitDelay: .zero)])
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
            case .readerConnected: connected = true
            case .readerError, .readerDisconnected: problem = event.message
            case .tagRemoved: break
            }
        }
        guard connected else {
            throw .runtime("could not open the reader '\(device)'\(problem.map { " (\($0))" } ?? ""); `tagrouter devices` says why")
        }
        throw .runtime("no tag arrived on '\(device)' within \(timeout / .seconds(1)) s")
    }
}
