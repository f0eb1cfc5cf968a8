import OrderedJSON
import TagCore

/// What lies on one reader, as Home Assistant's "current tag" sensor and "tag
/// present" binary sensor show it: fed the reader's events, it gives the retained
/// state message `{"state": …, "present": …, "event": <the last event>}`; `event` is
/// `{}` until the first one, so HA's attributes template always gets an object.
/// `state` is the newest tag still present, by name, else HA tag id, else UID;
/// empty when the field is empty or the reader went away.
struct ReaderPresence: Sendable, Equatable {
    private struct Present: Sendable, Equatable {
        let uid: TagUID
        var label: String
    }

    /// The tags in the field, oldest arrival first.
    private var present: [Present] = []
    private var lastEvent: JSONValue?

    /// Takes in `event`; false when it does not change what the reader shows.
    mutating func apply(_ event: TagEvent) -> Bool {
        switch event.kind {
        case .tagArrived, .tagHeld, .tagTapped:
            guard let tag = event.tag else { return false }
            let label = tag.name ?? event.tagID ?? tag.uid.hex
            if let index = present.firstIndex(where: { $0.uid == tag.uid }) {
                present[index].label = label
            } else {
                present.append(Present(uid: tag.uid, label: label))
            }
        case .tagRemoved:
            guard let uid = event.tag?.uid else { return false }
            present.removeAll { $0.uid == uid }
        case .readerDisconnected:
            present = []
        case .readerConnected, .readerError, .readerWaiting:
            return false
        }
        lastEvent = event.json
        return true
    }

    /// The state message's payload.
    var payload: JSONValue {
        var object = JSONObject()
        object["state"] = .string(present.last?.label ?? "")
        object["present"] = .bool(!present.isEmpty)
        object["event"] = lastEvent ?? .object(JSONObject())
        return .object(object)
    }
}
