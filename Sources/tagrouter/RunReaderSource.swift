import TagCore
import TagReader
import TagRouter

/// The boundary between `run` and the reader loop: the configured readers,
/// supervised by TagReader, as one merged stream of events.
enum RunReaderSource {
    /// Starts one reader thread per entry of `readers:`.
    static func start(_ readers: [ReaderSettings]) -> ReaderSupervisor {
        ReaderSupervisor(readers: readers.map(config))
    }

    /// TagReader's settings for one `readers:` entry (the keys map one to one).
    static func config(_ reader: ReaderSettings) -> ReaderConfig {
        ReaderConfig(
            name: reader.name, device: reader.device, cooldown: reader.cooldown, exitDelay: reader.exitDelay,
            ignoreOnConnect: reader.ignoreOnConnect, pollInterval: reader.pollInterval,
            polling: ReaderConfig.Polling(rawValue: reader.polling) ?? .autoPoll, watchdog: reader.watchdog)
    }
}
