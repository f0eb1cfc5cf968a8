import Foundation
import Synchronization
import SystemKit
import Testing

/// Reading files whole, and saying why one cannot be read.
@Suite struct FileBytesTests {
    /// Asking why a named pipe cannot be read must not open it: an open, even one closed at once, lets a writer
    /// waiting in open(2) go on, and what it then writes is lost with that reader (or kills it with SIGPIPE), while
    /// the real reader after it waits for a writer that never comes. `ConfigFile(explicit:)` asks before the daemon
    /// reads its config, and a test feeding its config through a FIFO hung or died that way under load.
    @Test func askingWhyAPipeCannotBeReadDoesNotOpenIt() async throws {
        let directory = NSTemporaryDirectory() + "filebytes-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/tagrouter.yaml"
        try #require(mkfifo(path, 0o600) == 0)
        let asked = Atomic<Bool>(false)
        let openedBeforeAsked = Atomic<Bool>(false)
        let answeredReadable = Atomic<Bool>(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let writerStarted = Atomic<Bool>(false)
            Thread.detachNewThread {
                writerStarted.store(true, ordering: .sequentiallyConsistent)
                let descriptor = open(path, O_WRONLY)  // waits for a reader
                openedBeforeAsked.store(!asked.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
                if descriptor >= 0 { close(descriptor) }
                continuation.resume()
            }
            Thread.detachNewThread {
                while !writerStarted.load(ordering: .sequentiallyConsistent) { usleep(1_000) }
                usleep(50_000)  // the writer is in open(2) by now (were it not, the check below could only pass)
                answeredReadable.store(FileBytes.whyUnreadable(path) == nil, ordering: .sequentiallyConsistent)
                usleep(50_000)  // a writer the question let go has noted it by now
                asked.store(true, ordering: .sequentiallyConsistent)
                // The real reader: it lets the writer go.
                let reader = open(path, O_RDONLY | O_NONBLOCK)
                usleep(50_000)
                if reader >= 0 { close(reader) }
            }
        }
        let readable = answeredReadable.load(ordering: .sequentiallyConsistent)
        let letGo = openedBeforeAsked.load(ordering: .sequentiallyConsistent)
        #expect(readable, "a pipe the process may read is readable")
        #expect(!letGo, "the question opened the pipe and let its writer go")
    }
}
