import FoundationEssentials

/// A `*_file` secret on disk, and — when it cannot be read — why, said so that
/// the user knows what to create or fix.
struct SecretFile {
    let path: String

    /// Nil when the file can be read.
    var problem: String? {
        var isDirectory = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if exists, isDirectory { return "'\(path)' is a directory; name the file that holds the secret" }
        if FileManager.default.isReadableFile(atPath: path) { return nil }
        guard exists else {
            return "cannot read '\(path)': there is no such file; create it with the secret alone in it (mode 600, owned by the user tagrouter runs as)"
        }
        return "cannot read '\(path)': permission denied; make it readable by the user tagrouter runs as (mode 600, owned by that user)"
    }
}
