import Glibc
import TagCore

/// A `feedback.sound` file on disk, checked at load: a readable regular file
/// (not a folder, a pipe or a device, which could hold a player forever), not
/// empty, at most `FeedbackSound.fileLimit` bytes, and — for `aplay`, which
/// would play anything else as noise — a WAV, AU or VOC file.
struct SoundFile {
    let path: String

    /// Why the file cannot be played by `player` (nil: not known yet), or nil when it can.
    func problem(for player: FeedbackSound.Player?) -> String? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            let reason = errno
            if reason == ENOENT { return "cannot read '\(path)': there is no such file; name an existing sound file (a relative path starts at the config file's folder)" }
            if reason == EACCES { return "cannot read '\(path)': permission denied; make it readable by the user tagrouter runs as" }
            return "cannot read '\(path)': \(String(cString: strerror(reason)))"
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return "cannot read '\(path)': \(String(cString: strerror(errno)))" }
        guard info.st_mode & S_IFMT == S_IFREG else { return "'\(path)' is not a regular file; name a sound file" }
        guard info.st_size > 0 else { return "'\(path)' is empty; name a sound file" }
        guard info.st_size <= FeedbackSound.fileLimit else {
            return "'\(path)' has \(info.st_size) bytes, more than the \(FeedbackSound.fileLimit) a feedback sound may have; use a shorter sound"
        }
        guard player == .aplay else { return nil }
        var header = [UInt8](repeating: 0, count: 20)
        let count = header.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count >= 4 else { return "cannot read '\(path)': \(count < 0 ? String(cString: strerror(errno)) : "it is too short for a sound file")" }
        return Self.isALSAFormat(header[..<max(count, 0)]) ? nil
            : "'\(path)' is not a WAV, AU or VOC file, which aplay would play as noise; convert it (`sox in.ogg out.wav`) or use pw-play/paplay"
    }

    /// RIFF…WAVE, Sun `.snd`, or `Creative Voice File`: what aplay reads by its header.
    private static func isALSAFormat(_ header: ArraySlice<UInt8>) -> Bool {
        let bytes = Array(header)
        if bytes.count >= 12, bytes[0..<4] == Array("RIFF".utf8)[...], bytes[8..<12] == Array("WAVE".utf8)[...] { return true }
        if bytes.starts(with: Array(".snd".utf8)) { return true }
        return bytes.starts(with: Array("Creative Voice File".utf8))
    }
}
