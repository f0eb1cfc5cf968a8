import FoundationEssentials
import OrderedJSON
import SystemKit
import TagCore

/// What the payloads on an `mqtt` input's topic are, and how each becomes an event.
enum InputFormat: String, Sendable, CaseIterable {
    /// Events in format v1, as another tagrouter node's `mqtt` action publishes them: taken as they are.
    case tagrouter
    /// The `SENSOR` JSON a Tasmota device publishes for its PN532 (NFC) or RDM6300 (125 kHz) reader:
    /// `{"Time":"…","PN532":{"UID":"94D8FC5F","DATA":"…"}}`, `{"Time":"…","RDM6300":{"UID":"0012345678"}}`.
    case tasmota
    /// The payload is a UID (`04:A2:24:B2`, `04a224b2`, any usual spelling) or a Home Assistant tag id.
    case uid

    /// The largest payload read; a larger one is malformed (an event of format v1 is a few KiB).
    static let payloadLimit = 64 << 10

    /// What a message on the input's topic says.
    enum Reading: Equatable {
        /// An event; `reader` and `node` still to be filled in from the topic where the payload did not name them.
        case event(TagEvent)
        /// A message of the format that is not a tag reading (Tasmota's periodic telemetry of other sensors).
        case notAReading
    }

    /// Reads `payload`; throws why it is not a message of this format.
    func read(_ payload: [UInt8]) throws(InputProblem) -> Reading {
        guard payload.count <= Self.payloadLimit else { throw InputProblem("the payload is larger than \(Self.payloadLimit) bytes") }
        let text = String(decoding: payload, as: UTF8.self)
        switch self {
        case .tagrouter:
            do {
                return .event(try TagEvent(jsonText: text))
            } catch {
                throw InputProblem("not a tagrouter event: \(error.description)")
            }
        case .tasmota:
            return try Self.tasmota(text)
        case .uid:
            return .event(try Self.uid(text))
        }
    }

    /// Tasmota's reader drivers by the member they publish, with the tag type each reads.
    private static let tasmotaReaders: [(member: String, type: String)] = [("PN532", "unknown"), ("RDM6300", "em4100")]

    private static func tasmota(_ text: String) throws(InputProblem) -> Reading {
        let json: JSONValue
        do {
            json = try JSONValue.parse(text)
        } catch {
            throw InputProblem("not Tasmota SENSOR JSON: \(error.description)")
        }
        guard case .object = json else { throw InputProblem("not Tasmota SENSOR JSON: expected an object such as {\"PN532\":{\"UID\":\"94D8FC5F\"}}") }
        guard let (member, type) = tasmotaReaders.first(where: { json[$0.member] != nil }) else { return .notAReading }
        guard let uidText = json[member]?["UID"]?.stringValue else { throw InputProblem("\(member).UID is missing or not a string") }
        guard let uid = TagUID(uidText) else { throw InputProblem("\(member).UID '\(uidText.prefix(32))' is not hex digits") }
        let data = json[member]?["DATA"]?.stringValue ?? json[member]?["Data"]?.stringValue
        return .event(TagEvent(kind: .tagArrived, reader: "", tag: TagInfo(uid: uid, type: type), text: data.flatMap { $0.isEmpty ? nil : $0 }))
    }

    /// UIDs are 4, 7 or 10 bytes (ISO 14443), 5 for EM4100, 8 for ISO 15693; anything
    /// longer that parses as hex (a UUID) is an HA tag id.
    private static let uidLengths = 4...10

    private static func uid(_ text: String) throws(InputProblem) -> TagEvent {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw InputProblem("the payload is empty; expected a UID such as 04:A2:24:B2 or a Home Assistant tag id") }
        if let uid = TagUID(trimmed), uidLengths.contains(uid.bytes.count) {
            return TagEvent(kind: .tagArrived, reader: "", tag: TagInfo(uid: uid, type: "unknown"))
        }
        guard trimmed.utf8.count <= 256, !trimmed.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control })
        else { throw InputProblem("'\(trimmed.prefix(64))' is neither a UID nor a Home Assistant tag id (one word, at most 256 bytes)") }
        return TagEvent(kind: .tagArrived, reader: "", uri: TagEvent.homeAssistantTagPrefix + trimmed)
    }
}

/// Why a message on an input's topic was skipped; the input counts it under
/// `refusal` and logs it (rate-limited) with the topic.
struct InputProblem: Error, Sendable, CustomStringConvertible {
    let refusal: InputRefusal
    let description: String

    init(_ refusal: InputRefusal, _ description: String) {
        self.refusal = refusal
        self.description = description
    }

    /// A message that is not of the format, or over a bound.
    init(_ description: String) { self.init(.malformed, description) }
}
