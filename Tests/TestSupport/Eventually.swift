/// Polls `condition` until it holds, for at most `seconds`; its last answer.
/// For state that no stream reports (files appearing, a process ending).
public func eventually(within seconds: Int = 20, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
