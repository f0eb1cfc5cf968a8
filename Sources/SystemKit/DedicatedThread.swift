import Glibc

/// A thread of its own for work that blocks: a C library's loop (libnfc, libmosquitto, libcurl, PC/SC), a socket's
/// `accept`, a file read line by line. The house rule is that each blocking C library is owned by one such thread,
/// never by a task of Swift's cooperative pool. A POSIX thread, detached: it ends when `body` returns, nothing joins it.
/// It logs to the logger of the task that started it (`Logger.bound`), as a child task would.
public enum DedicatedThread {
    /// Starts `body` on a new thread named `name` (Linux keeps the first 15 bytes; `top -H` and `ps -L` show them).
    /// Fails only when the system refuses another thread, which leaves the daemon unable to work: it stops with why.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let work = Unmanaged.passRetained(Work(name: name, logger: Logger.bound, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { pointer in
            let work = Unmanaged<Work>.fromOpaque(pointer!).takeRetainedValue()
            work.run()
            return nil
        }, work)
        guard result == 0 else {
            fatalError("cannot start the thread '\(name)': \(String(cString: strerror(result)))")
        }
    }

    /// Runs `body` on a new thread and waits for what it returns without holding a thread of Swift's pool: a blocking
    /// call (a file read that may wait for its writer, a load that reads files) made from async code.
    public static func value<Value: Sendable>(name: String, _ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
            start(name: name) { continuation.resume(returning: body()) }
        }
    }

    /// What the new thread runs, handed over through pthread_create's one pointer.
    private final class Work: Sendable {
        let name: [CChar]
        let logger: Logger?
        let body: @Sendable () -> Void

        init(name: String, logger: Logger?, body: @escaping @Sendable () -> Void) {
            self.name = name.utf8.prefix(15).map { CChar(bitPattern: $0) } + [0]
            self.logger = logger
            self.body = body
        }

        func run() {
            nameThisThread()
            Logger.$bound.withValue(logger, operation: body)
        }

        /// Glibc's pthread_setname_np is not visible to Swift (it needs _GNU_SOURCE); the kernel file it writes is.
        private func nameThisThread() {
            let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            guard file >= 0 else { return }
            _ = write(file, name, strlen(name))
            close(file)
        }
    }
}
