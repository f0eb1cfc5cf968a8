/// The password an NTAG 213/215/216 is protected with and the PACK the tag answers
/// it with (docs/protected-tags.md), from a private file: 12 hex digits, the 4
/// password bytes then the 2 PACK bytes in the order they cross the air, spaces or
/// colons allowed between (`openssl rand -hex 6`). Never printed or logged.
public struct TagPassword: Sendable, Equatable, CustomStringConvertible {
    /// PWD: what PWD_AUTH sends.
    public let password: [UInt8]
    /// PACK: what the tag must answer.
    public let pack: [UInt8]

    /// The bytes of a password file's content; nil unless it is 12 hex digits (spaces, colons, dashes and line breaks aside).
    public init?(text: String) {
        let oneLine = text.split(whereSeparator: { $0 == "\t" || $0.isNewline }).joined(separator: " ")
        guard let bytes = TagUID(oneLine)?.bytes, bytes.count == 6 else { return nil }
        password = Array(bytes[0..<4])
        pack = Array(bytes[4..<6])
    }

    /// The 12 hex digits, for the control socket's `password_hex` (never for a log).
    public var hex: String { TagUID(bytes: password + pack).hex }

    public var description: String { "a tag password" }
}
