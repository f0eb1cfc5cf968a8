import SystemKit

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
    typealias Problem = PrivateFile.Problem

    let path: String

    /// The token, trimmed of surrounding whitespace; nil when the file cannot be opened at all (missing,
    /// unreadable: the option's validator reports that); a `Problem` when it is there but guards nothing.
    func read() throws(Problem) -> String? {
        guard let bytes = try PrivateFile(path: path, what: "token").read(limit: Self.maximumLength) else { return nil }
        let token = Self.trimmed(bytes[...])
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
}
