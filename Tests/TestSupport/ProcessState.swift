import Foundation
import Glibc

/// Polls until the process is gone or a zombie (dead, waiting for whoever
/// adopted it to reap it), for at most 20 s.
public func waitUntilGone(_ pid: pid_t) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        if let close = stat.lastIndex(of: ")"), stat[close...].dropFirst(2).first == "Z" { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return false
}
