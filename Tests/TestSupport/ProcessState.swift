import Foundation
import Glibc

/// Polls until the process is gone or a zombie (dead, waiting for whoever
/// adopted it to reap it), for at most 20 s.
public func waitUntilGone(_ pid: pid_t) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
        if hasEnded(pid) { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return false
}

/// True when the process is gone or a zombie, now (no waiting).
public func hasEnded(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
    guard let close = stat.lastIndex(of: ")") else { return true }
    return stat[close...].dropFirst(2).first == "Z"
}
