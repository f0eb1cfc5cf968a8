@preconcurrency import Glibc
import Dispatch

/// Signals as an async sequence: each is set to be ignored (so its default action
/// cannot end the process) and delivered through a `DispatchSource` instead. The
/// sources are cancelled when the stream's consumer goes away.
func signalStream(_ numbers: [Int32]) -> AsyncStream<Int32> {
    let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
    // Dispatch sources are thread-safe; the array is only read, to cancel them.
    nonisolated(unsafe) let sources = numbers.map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { continuation.yield(number) }
        source.resume()
        return source
    }
    continuation.onTermination = { _ in
        for source in sources { source.cancel() }
    }
    return stream
}
