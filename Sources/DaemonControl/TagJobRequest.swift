import NDEF
import OrderedJSON
import TagCore

/// The control socket's `write` and `read` requests (docs/control.md) as the
/// `TagJob` they ask for, or why the request is wrong:
/// `{"command":"write","reader":R,"message_hex":"d1…","append":false,"lock":false,"protect":false,"password_hex":"…","timeout_s":30,"present":false}`
/// (`password_hex`: a tag password's 12 hex digits, else the daemon's `tag_password_file` is used),
/// `{"command":"read","reader":R,"timeout_s":30,"present":true}`.
struct TagJobRequest {
    var job: TagJob
    /// The reader's name or device; nil: the daemon's only reader.
    var reader: String?

    init(_ request: JSONValue, command: ControlProtocol.Command, origin: String) throws(TagJobRefusal) {
        reader = request["reader"]?.stringValue
        let timeout = try TagJob.timeout(request["timeout_s"], field: "timeout_s")
        switch command {
        case .write:
            guard let hex = request["message_hex"]?.stringValue, let message = Hex.bytes(hex), !message.isEmpty else {
                throw TagJobRefusal(.badRequest, "write needs message_hex: the NDEF message as hex (`tagrouter encode` prints one)")
            }
            var password: TagPassword?
            if let given = request["password_hex"] {
                guard let text = given.stringValue, let parsed = TagPassword(text: text) else {
                    throw TagJobRefusal(.badRequest, "password_hex must be 12 hex digits: the tag password (4 bytes) then its PACK (2 bytes)")
                }
                password = parsed
            }
            let order = TagWriteOrder(
                message: message, append: request["append"] == true, lock: request["lock"] == true, protect: request["protect"] == true,
                password: password)
            job = TagJob(.write(order), timeout: timeout, takesPresent: request["present"] == true, origin: origin)
        default:
            job = TagJob(.read, timeout: timeout, takesPresent: request["present"] != false, origin: origin)
        }
    }
}
