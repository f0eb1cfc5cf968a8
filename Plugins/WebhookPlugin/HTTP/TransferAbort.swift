import Synchronization

/// Set by the task that awaits a transfer when it is cancelled; read by curl's
/// thread before and during the transfer, which then stops.
final class TransferAbort: Sendable {
    private let requested = Atomic<Bool>(false)

    func request() { requested.store(true, ordering: .releasing) }

    var isRequested: Bool { requested.load(ordering: .acquiring) }
}
