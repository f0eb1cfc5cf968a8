@preconcurrency import Glibc

/// A bearer token that guards a listener (`metrics.token_file`), read so that it
/// guards something: a regular file (not `/dev/null`, `/dev/zero`, a pipe),
/// private to its owner (no group or other permission), holding one token of
/// 16 to 4096 bytes that an `Authorization` header can carry. Otherwise the
/// reason, naming the file and how to fix it.
struct TokenFile {
    /// The fewest bytes a token has: 128 bits of random hex (`openssl rand -hex 32` gives 64).
    static let minimumLength = 16
    /// The most bytes a token file holds, so that a huge file is refused rather than read.
    static let maximumLength = 4096

    /// A token file that cannot be used, and why.
    struct Problem: Error {
        let message: String
    }

    let path: String

    /// The token, trimmed of surrounding whitespace; nil when the file cannot be opened at all (missing,
    /// unreadable: the option's validator reports that); a `Problem` when it is there but guards nothing.
    func read() throws(Problem) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else {
            if kind == S_IFDIR { return nil }  // the validator says so
            throw Problem(message: "'\(path)' is not a regular file but \(Self.describe(kind)); put the token alone in a file of its own")
        }
        if info.st_mode & 0o077 != 0 {
            throw Problem(message: "'\(path)' can be read by other users (mode \(String(info.st_mode & 0o777, radix: 8))); "
                + "`chmod 600 \(path)`, owned by the user tagrouter runs as")
        }
        if info.st_size > Self.maximumLength {
            throw Problem(message: "'\(path)' is \(info.st_size) bytes long, more than a token (at most \(Self.maximumLength)); put the token alone in it")
        }
        var bytes = [UInt8](repeating: 0, count: Self.maximumLength + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            count += got
        }
        let token = Self.trimmed(bytes[..<min(count, Self.maximumLength)])
        let fix = "`openssl rand -hex 32 > \(path)`"
        if token.isEmpty { throw Problem(message: "'\(path)' holds no token; put one of at least \(Self.minimumLength) characters in it (\(fix))") }
        guard token.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Problem(message: "'\(path)' holds a space or a control character, which an `Authorization` header cannot carry; "
                + "use letters, digits and punctuation (\(fix))")
        }
        guard token.count >= Self.minimumLength else {
            throw Problem(message: "'\(path)' holds a token of \(token.count) bytes; use one of at least \(Self.minimumLength) (\(fix))")
        }
        return String(decoding: token, as: UTF8.self)
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        guard let first = bytes.firstIndex(where: { !space.contains($0) }), let last = bytes.lastIndex(where: { !space.contains($0) }) else {
            return []
        }
        return bytes[first...last]
    }

    private static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFIFO: return "a named pipe"
        case S_IFSOCK: return "a socket"
        default: return "not a file"
        }
    }
}
