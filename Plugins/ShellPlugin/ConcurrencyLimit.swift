/// At most `capacity` operations at once; the others wait in arrival order.
actor ConcurrencyLimit {
    private let capacity: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ capacity: Int) { self.capacity = max(1, capacity) }

    /// Runs `operation` once a slot is free.
    func run<Result: Sendable, Failure: Error>(_ operation: () async throws(Failure) -> Result) async throws(Failure) -> Result {
        if running < capacity {
            running += 1
        } else {
            await withCheckedContinuation { waiting.append($0) }
        }
        defer { release() }
        return try await operation()
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
