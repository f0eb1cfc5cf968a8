import Synchronization
import TagCore

extension TagJobRunner {
    /// `submit`, awaited; cancelling the task withdraws a job still waiting for a tag.
    public func run(_ job: TagJob, reader: String?) async -> TagJobResult {
        let handle = SubmittedHandle()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let submitted = submit(job, reader: reader) { continuation.resume(returning: $0) }
                handle.slot.withLock { $0 = submitted }
                if Task.isCancelled { submitted.cancel() }
            }
        } onCancel: {
            handle.slot.withLock { $0 }?.cancel()
        }
    }
}

/// The handle of a job being run, shared by the task and its cancellation handler: a class, since
/// Swift 6.0 (Debian 13's) rejects a local `Mutex` captured by both closures.
private final class SubmittedHandle: Sendable {
    let slot = Mutex<TagJobHandle?>(nil)
}
