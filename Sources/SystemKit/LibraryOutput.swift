@preconcurrency import Glibc
import OrderedJSON

/// What C libraries print through stdio's `stderr` — libnfc's log lines,
/// `debug\tlibnfc.chip.pn53x\tmessage` — taken as log entries, so a JSON log
/// stays one JSON object per line.
///
/// stdio's `stderr` is pointed at a pipe that a dedicated thread reads line by
/// line (lines are cut at `maximumLineBytes`). Descriptor 2 is left alone: the
/// daemon's own log and the runtime's crash reports still go straight to it.
public enum LibraryOutput {
    /// The longest line taken as one entry; the rest of a longer one is dropped.
    static let maximumLineBytes = 4096

    /// Starts the capture, once; later calls do nothing.
    public static func capture() { _ = started }

    private static let started: Void = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return Log.warning("cannot capture the C libraries' stderr", JSONObject(["errno": .int(Int64(errno))])) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        guard let stream = fdopen(ends[1], "w") else {
            close(ends[0])
            close(ends[1])
            return Log.warning("cannot capture the C libraries' stderr", JSONObject(["errno": .int(Int64(errno))]))
        }
        setvbuf(stream, nil, _IOLBF, 0)
        fflush(stderr)
        stderr = stream
        let readEnd = ends[0]
        DedicatedThread.start(name: "library output") { forwardLines(from: readEnd) }
    }()

    private static func forwardLines(from descriptor: Int32) {
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            for byte in chunk[..<count] {
                if byte == UInt8(ascii: "\n") {
                    log(String(decoding: line, as: UTF8.self))
                    line.removeAll(keepingCapacity: true)
                } else if line.count < maximumLineBytes {
                    line.append(byte)
                }
            }
        }
    }

    private static func log(_ line: String) {
        let (level, message, fields) = entry(line)
        Log.write(level, message, fields)
    }

    /// One line as an entry: libnfc's `priority\tcategory\tmessage` at its level, anything else at info.
    static func entry(_ line: String) -> (Log.Level, String, JSONObject) {
        let parts = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
        if parts.count == 3, let level = Log.Level(name: String(parts[0])) ?? (parts[0] == "none" ? .info : nil), parts[1].hasPrefix("libnfc") {
            return (level, "libnfc: " + parts[2], JSONObject(["category": .string(String(parts[1]))]))
        }
        return (.info, "a library wrote to stderr", JSONObject(["line": .string(line)]))
    }
}
