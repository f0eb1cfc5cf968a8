import FoundationEssentials
import NDEF
import OrderedJSON
import TagCore

/// A message on `<base_topic>/<reader>/write` (docs/home-assistant.md) as the
/// job it asks for: the records to write — one record's fields at the top level,
/// or `records: [...]` in order, after HA's tag URL with a fresh id when
/// `ha_tag: true` — and `timeout` (seconds), `lock`, `append`, `protect` (with the daemon's
/// `tag_password_file`: a message never carries a password). The `token` is checked before.
struct MQTTWriteRequest {
    var job: TagJob
    /// The fresh Home Assistant tag id written, with `ha_tag: true`.
    var homeAssistantTagID: String?

    /// Reads the JSON object `request`; its `timeout` may be at most `maximumTimeout`.
    init(_ request: JSONValue, allowLock: Bool, maximumTimeout: Duration) throws(TagJobRefusal) {
        var records: [NDEFRecord] = []
        if request["ha_tag"] == true {
            let tagID = UUID().uuidString.lowercased()
            homeAssistantTagID = tagID
            records.append(.uri(TagEvent.homeAssistantTagPrefix + tagID))
        }
        if RecordShortForm.keys.contains(where: { request[$0] != nil }) {
            records.append(try RecordShortForm.record(request, place: "the request"))
        }
        if let list = request["records"] {
            guard case .array(let elements) = list else { throw TagJobRefusal(.badRequest, "records must be a list of records") }
            for (index, element) in elements.enumerated() { records.append(try RecordShortForm.record(element, place: "records[\(index)]")) }
        }
        guard !records.isEmpty else {
            throw TagJobRefusal(.badRequest, "the request names nothing to write: give ha_tag: true, a record (uri, text, mime, json, aar) or records: [...]")
        }
        let lock = request["lock"] == true
        if lock, !allowLock {
            throw TagJobRefusal(.badRequest, "locking a tag from MQTT needs `allow_lock: true` in the config's mqtt section")
        }
        if request["password"] != nil || request["password_hex"] != nil {
            throw TagJobRefusal(.badRequest, "a write request carries no password: the daemon uses its `tag_password_file`")
        }
        let order = TagWriteOrder(
            message: NDEFMessage(records: records).encoded(), append: request["append"] == true, lock: lock, protect: request["protect"] == true)
        job = TagJob(.write(order), timeout: try TagJob.timeout(request["timeout"], field: "timeout", maximum: maximumTimeout), takesPresent: false, origin: "mqtt")
    }
}
