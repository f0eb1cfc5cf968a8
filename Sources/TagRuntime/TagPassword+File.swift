import SystemKit
import TagCore

extension TagPassword {
    /// The password in the private file at `path` (regular, mode 600, owned by this user).
    public init(file path: String) throws(PrivateFile.Problem) {
        let example = "`openssl rand -hex 6 > \(path) && chmod 600 \(path)`"
        guard let bytes = try PrivateFile(path: path, what: "password").read(limit: 256, requireOwner: true) else {
            throw PrivateFile.Problem(message: "cannot read the password file '\(path)' (missing, a directory, or not readable by this user); "
                + "put the password in it: 12 hex digits, PWD then PACK (\(example))")
        }
        guard let password = TagPassword(text: String(decoding: bytes, as: UTF8.self)) else {
            throw PrivateFile.Problem(message: "'\(path)' must hold 12 hex digits: the 4-byte password then the 2-byte PACK (\(example))")
        }
        self = password
    }
}
