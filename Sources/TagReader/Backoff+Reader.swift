import Lifecycle

extension Backoff {
    /// How a reader retries a device that is missing, lost or held by another
    /// process: 250 ms, doubling up to 5 s.
    package static var readerReopen: Backoff { Backoff(initial: .milliseconds(250), maximum: .seconds(5)) }
}
