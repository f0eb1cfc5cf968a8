// What the process benchmarks share to report: progress on stderr, durations in milliseconds.
import Glibc

/// Writes `text` and a newline to standard error: progress, kept out of the Markdown table on stdout.
public func note(_ text: String) {
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// `duration` in milliseconds, with its fraction.
public func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}
