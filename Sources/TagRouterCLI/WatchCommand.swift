import TagCore
import TagReader

/// `tagrouter watch`: print every reader and tag event as JSON lines
enum WatchCommand: Command {
    static let name = "watch"
    static let summary = "print every reader and tag event as JSON lines"
    static let usage = """
        Usage: tagrouter watch [--device CONNSTRING …] [--if-busy exit|wait] [--exit-delay S] [--cooldown S]
                               [--ignore-on-connect] [--polling auto-poll|list-passive]

        Prints every event of the readers (reader.connected, tag.arrived, tag.removed,
        reader.disconnected, reader.error) as one JSON object per line until interrupted.

        \(ReaderOptions.usage)
                                (repeat it to watch several readers)
          --exit-delay S        a tag missing this long is removed (default 0.5)
          --cooldown S          the same tag returning within this is not reported (default 0)
          --ignore-on-connect   tags already lying on a reader when it connects do not fire
          --polling MODE        auto-poll (default; the PN532 polls, no CPU) or list-passive
        """

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let reader = try ReaderOptions(&arguments, multiple: true)
        let exitDelay = try ReaderOptions.seconds(try arguments.option("--exit-delay"), option: "--exit-delay", default: .milliseconds(500))
        let cooldown = try ReaderOptions.seconds(try arguments.option("--cooldown"), option: "--cooldown", default: .zero)
        let ignoreOnConnect = arguments.flag("--ignore-on-connect")
        let pollingName = try arguments.option("--polling") ?? ReaderConfig.Polling.autoPoll.rawValue
        guard let polling = ReaderConfig.Polling(rawValue: pollingName) else {
            throw .usage("--polling takes auto-poll or list-passive, not '\(pollingName)'")
        }
        try arguments.finish()
        let configs = reader.devices.map { device in
            ReaderConfig(
                name: device, device: device, cooldown: cooldown, exitDelay: exitDelay,
                ignoreOnConnect: ignoreOnConnect, polling: polling, ifBusy: reader.ifBusy)
        }
        let supervisor = ReaderSupervisor(readers: configs)
        var lastError: String?
        for await event in supervisor.events {
            print(event.json.serialized())
            if event.kind == .readerError { lastError = event.message }
        }
        // Readers only end by themselves when they give up on a busy device.
        throw .runtime(lastError ?? "every reader stopped")
    }
}
