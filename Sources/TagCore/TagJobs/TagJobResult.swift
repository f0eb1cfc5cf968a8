import OrderedJSON
/// How a `TagJob` ended: the tag read, the tag written, or why not.
public enum TagJobResult: Sendable, Equatable {
    /// The tag as read: its `tag.arrived` event.
    case read(TagEvent)
    case written(TagWriteReport)
    case refused(TagJobRefusal)

    /// The answer as JSON, the same on the control socket and on MQTT:
    /// `{"ok":true,"event":{…}}`, `{"ok":true,"written":{…}}` or
    /// `{"ok":false,"refused":"no_tag","error":"…"}`.
    public var json: JSONObject {
        switch self {
        case .read(let event): return JSONObject(["ok": true, "event": event.json])
        case .written(let report): return JSONObject(["ok": true, "written": .object(report.json)])
        case .refused(let refusal): return JSONObject(["ok": false, "refused": .string(refusal.reason.rawValue), "error": .string(refusal.message)])
        }
    }
}

/// What a write did to the tag.
public struct TagWriteReport: Sendable, Equatable {
    public var reader: String
    public var tag: TagInfo
    /// Records in the message now on the tag (with `append`, the old ones too).
    public var records: Int
    /// Bytes of that message.
    public var bytes: Int
    /// The driver read the message back and found what it wrote.
    public var verified: Bool
    public var locked: Bool
    /// The tag's writes need the password now (it was protected, or authenticated to).
    public var protected: Bool

    public init(reader: String, tag: TagInfo, records: Int, bytes: Int, verified: Bool, locked: Bool, protected: Bool = false) {
        self.reader = reader
        self.tag = tag
        self.records = records
        self.bytes = bytes
        self.verified = verified
        self.locked = locked
        self.protected = protected
    }

    /// `wrote 2 records (40 bytes) to ntag215 04a224b2c35e80, read back and verified`.
    public var summary: String { summary(showingUID: true) }

    public var json: JSONObject { json(showingUID: true) }

    /// The report as JSON; without the UID (`showingUID: false`) for answers
    /// published where others may read them (MQTT's `…/write/result`).
    public func json(showingUID: Bool) -> JSONObject {
        var json = JSONObject(["reader": .string(reader)])
        if showingUID {
            json["uid"] = .string(tag.uid.hex)
            json["uid_dashed"] = .string(tag.uid.dashed)
        }
        json["type"] = .string(tag.type)
        json["records"] = .int(Int64(records))
        json["bytes"] = .int(Int64(bytes))
        json["verified"] = .bool(verified)
        json["locked"] = .bool(locked)
        json["protected"] = .bool(protected)
        json["summary"] = .string(summary(showingUID: showingUID))
        return json
    }

    private func summary(showingUID: Bool) -> String {
        "wrote \(records) record\(records == 1 ? "" : "s") (\(bytes) bytes) to \(tag.type)" + (showingUID ? " \(tag.uid.hex)" : "")
            + (verified ? ", read back and verified" : "") + (locked ? "; the tag is now read-only" : "")
            + (protected ? "; writes to it need the password" : "")
    }
}

/// Why a job was not done, as a stable reason code and words a user can act on.
public struct TagJobRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reason code (`refused` in the JSON answer).
    public enum Reason: String, Sendable, CaseIterable {
        /// The message is larger than the tag holds.
        case tooLarge = "too_large"
        /// The tag refuses writes.
        case readOnly = "read_only"
        /// The tag's writes need a password and none was given.
        case passwordProtected = "password_protected"
        /// The tag refused the password, or answered another PACK than the password's.
        case wrongPassword = "wrong_password"
        /// No tag came within the timeout.
        case noTag = "no_tag"
        /// The tag left the field before the job was done.
        case tagLeft = "tag_left"
        /// tagrouter cannot read or write this kind of tag (or not through this reader).
        case unsupported
        /// No such reader runs in the daemon.
        case noReader = "no_reader"
        /// The asker withdrew the job before a tag came (hung up, or the daemon stopped).
        case cancelled
        /// The NDEF data on the tag is damaged (so `append` cannot keep it).
        case damaged
        /// A request from the same asker already waits for a tag on this reader (MQTT: one at a time).
        case busy
        /// The request itself is wrong (no records, a bad field, a lock that is not allowed).
        case badRequest = "bad_request"
        /// Anything else (the reader failed, the data on the tag is damaged); the message says what.
        case failed
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }
}
