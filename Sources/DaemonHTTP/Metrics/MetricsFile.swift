@preconcurrency import Glibc
import FoundationEssentials

/// The textfile for node_exporter's textfile collector: written whole to a
/// temporary file beside it, then renamed over it, so the collector never
/// reads half a file.
struct MetricsFile: Sendable {
    let path: String

    /// Writes `text`; throws with the path and the reason when it cannot.
    func write(_ text: String) throws(HTTPError) {
        let temporary = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o644]) else {
            throw HTTPError("cannot write the metrics file: cannot create \(temporary): \(String(cString: strerror(errno))); check that the folder exists and is writable")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw HTTPError("cannot write the metrics file: cannot rename \(temporary) to \(path): \(reason)")
        }
    }
}
