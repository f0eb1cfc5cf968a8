import TagCore
import TagRouter

/// The boundary between `run` and the reader loop: the configured readers as
/// one merged stream of events.
enum RunReaderSource {
    static func events(_ readers: [ReaderSettings]) throws(CLIError) -> AsyncStream<TagEvent> {
        throw .runtime("this build has no reader loop yet; feed events with --events-from FILE (or - for stdin)")
    }
}
