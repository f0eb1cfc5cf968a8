import ChildProcess
import Glibc

extension ChildProcess {
    /// Ends the child's process group and returns once the child has exited, for a helper's `deinit`. A signal
    /// alone is not enough: the child may still be handling it (mosquitto saving its store, `mosquitto_sub`
    /// disconnecting) when the test process moves on or exits, and then it outlives its test. Sends `signal`,
    /// then `SIGKILL` when the child has not exited after `grace`, and waits. It blocks the calling thread, for
    /// as long as the child takes to exit (bounded): a `deinit` cannot wait otherwise.
    public func end(with signal: Int32 = SIGKILL, grace: Duration = .seconds(5)) {
        kill(-pid, signal)
        guard !waitForExit(within: grace) else { return }
        kill(-pid, SIGKILL)
        _ = waitForExit(within: .seconds(20))
    }

    private func waitForExit(within limit: Duration) -> Bool {
        let deadline = ContinuousClock.now + limit
        while !hasExited {
            guard ContinuousClock.now < deadline else { return false }
            usleep(1_000)
        }
        return true
    }
}
