/// How long to wait before restart number `n` of a plugin that keeps dying:
/// `initial`, doubling each time, at most `maximum`.
struct RestartBackoff: Sendable {
    let initial: Duration
    let maximum: Duration

    func delay(afterFailures failures: Int) -> Duration {
        let exponent = min(max(failures - 1, 0), 30)
        return min(initial * (1 << exponent), maximum)
    }
}
