import Dispatch
import FoundationEssentials
import Synchronization
import SystemKit

/// A dedicated thread for blocking libcurl transfers (they never run on the
/// cooperative pool): requests queue up, run one at a time over a kept-alive
/// connection, and each caller awaits its own result (or cancels it). The thread
/// ends when the value is released.
final class CurlThread: Sendable {
    private let queue = JobQueue()

    init() {
        let queue = queue
        DedicatedThread.start(name: "tagrouter-webhook") {
            var easy: CurlEasy?
            if case .success(let curl) = Curl.shared { easy = CurlEasy(curl) }
            while let job = queue.next() {
                let result = easy?.perform(job.request, abort: job.abort)
                    ?? .failure(HTTPTransportError(kind: .invalidRequest, message: "libcurl could not be initialised"))
                job.continuation.resume(returning: result)
            }
        }
    }

    deinit { queue.stop() }

    /// Sends `request` on the thread and waits for the answer. Cancelling the
    /// calling task aborts the transfer (within about a second, at curl's next
    /// progress call) and throws an error of kind `.cancelled`.
    func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
        let abort = TransferAbort()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                queue.add(Job(request: request, abort: abort, continuation: continuation))
            }
        } onCancel: {
            abort.request()
        }
        return try result.get()
    }
}

private struct Job: Sendable {
    var request: HTTPRequest
    var abort: TransferAbort
    var continuation: CheckedContinuation<Result<HTTPResponse, HTTPTransportError>, Never>
}

/// Jobs waiting for the thread; `next()` blocks until there is one or the queue stops.
private final class JobQueue: Sendable {
    private let jobs = Mutex<(waiting: [Job], stopped: Bool)>(([], false))
    private let available = DispatchSemaphore(value: 0)

    func add(_ job: Job) {
        let accepted = jobs.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.waiting.append(job)
            return true
        }
        if accepted {
            available.signal()
        } else {
            job.continuation.resume(returning: .failure(HTTPTransportError(kind: .connection, message: "the webhook is shutting down")))
        }
    }

    func next() -> Job? {
        while true {
            available.wait()
            let (job, stopped) = jobs.withLock { state in (state.waiting.isEmpty ? nil : state.waiting.removeFirst(), state.stopped) }
            if let job { return job }
            if stopped { return nil }
        }
    }

    func stop() {
        jobs.withLock { $0.stopped = true }
        available.signal()
    }
}
