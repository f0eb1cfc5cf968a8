import SystemKit
import TagCore
import TagRuntime

/// The top-level `tag_password_file`: the NTAG 213/215/216 password (and PACK) the
/// daemon protects tags with when a write request asks for `protect`, and writes
/// protected tags with (docs/protected-tags.md). A write request never carries it
/// over MQTT; the control socket's `password_hex` (from `tagrouter write --password-file`) overrides it.
enum TagPasswordSetting {
    static let option = Option(
        "tag_password_file", .secretFile,
        "file holding the NTAG 213/215/216 password for write requests: 12 hex digits, PWD then PACK (`openssl rand -hex 6`), mode 600, owned by the daemon's user; a write request with `protect: true` sets it, writes to tags it protects authenticate with it (docs/protected-tags.md)")

    /// The password in the file; nil when none is configured or the file has a problem (then in `errors`;
    /// a file `check-config` cannot read or does not own is a warning, as other secrets are; what
    /// `run` refuses wherever it runs — the file's mode, kind or contents — is an error there too).
    static func load(_ top: ConfigValue, _ errors: inout ConfigErrors) -> TagPassword? {
        guard let path = top.optionalString(option.name).map({ top.context.resolve($0) }) else { return nil }
        guard SecretFile(path: path).problem == nil else { return nil }  // the validator says so
        do throws(PrivateFile.Problem) {
            return try TagPassword(file: path)
        } catch {
            let warning = top.context.missingSecretsAreWarnings && error.isTheReaders
            errors.append(ConfigError(mark: top.child(option.name)?.mark ?? top.mark, path: option.name, message: error.message, isWarning: warning))
            return nil
        }
    }
}
