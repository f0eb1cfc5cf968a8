import TagCore
import TagReader

/// The boundary between `run` and the reader loop: the configured readers,
/// supervised by TagReader, as one merged stream of events.
enum RunReaderSource {
    /// Starts one reader thread per entry of `readers:`.
    static func start(_ readers: [ReaderConfig]) -> ReaderSupervisor {
        ReaderSupervisor(readers: readers)
    }
}
