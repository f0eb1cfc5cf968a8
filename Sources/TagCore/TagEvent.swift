import FoundationEssentials
import OrderedJSON

/// One thing that happened at a reader — a tag arrived or left, a reader came or
/// went — as the reader loop emits it and the router consumes it. Its `json` form
/// (TagEvent+JSON.swift) is the public event format v1 (README "Event format",
/// docs/event.schema.json).
public struct TagEvent: Sendable, Equatable {
    /// What happened; the raw value is the `event` field of the JSON.
    public enum Kind: String, Sendable, CaseIterable {
        case tagArrived = "tag.arrived"
        case tagRemoved = "tag.removed"
        /// The tag has stayed the reader's `hold` long (once per presence).
        case tagHeld = "tag.held"
        /// The tag left before the reader's `hold` (just before its `tag.removed`).
        case tagTapped = "tag.tapped"
        case readerConnected = "reader.connected"
        case readerDisconnected = "reader.disconnected"
        case readerError = "reader.error"
        /// The reader's device has not opened since the reader started (missing, hidden by a
        /// device sandbox, held by another process, not readable; at two attempts in a row) and
        /// the reader waits for it; `message` says why. Once per reason; `reader.connected` follows when it opens.
        case readerWaiting = "reader.waiting"

        /// True for the `tag.*` kinds, which carry a tag.
        public var isTagEvent: Bool { rawValue.hasPrefix("tag.") }
    }

    public var kind: Kind
    /// A unique id (UUID) for this event: idempotency key for webhooks, dedup key for consumers.
    public var id: String
    public var time: Date
    /// The configured name of the reader.
    public var reader: String
    /// The tagrouter node (or Tasmota device) the event came from over MQTT;
    /// nil for an event of this daemon's own readers.
    public var node: String?
    /// The tag, for `tag.*` events.
    public var tag: TagInfo?
    /// The decoded NDEF message as `{"records": […]}`; nil when the tag holds none.
    public var ndef: JSONValue? {
        get { storedNDEF?.value }
        set { storedNDEF = newValue.map(LazyJSONValue.value) }
    }
    /// `ndef` as it was given or read: an event line's member stays the text it came
    /// as until something looks inside it, and is written back as that text.
    var storedNDEF: LazyJSONValue?
    /// Why the NDEF message could not be read or decoded, when it could not.
    public var ndefError: String?
    /// The first URI of the message (URI record, Smart Poster or absolute URI).
    public var uri: String?
    /// The text of the first Text record.
    public var text: String?
    /// How long the tag was in the field, for `tag.removed`.
    public var dwellMs: Int?
    /// What went wrong, for `reader.error` and `reader.disconnected`; what the reader waits for, for `reader.waiting`.
    public var message: String?
    /// True on a `tag.removed` (and its `tag.tapped`) the reader did not see: a
    /// keyboard-wedge reader reports no removal, so it is assumed `exit_delay`
    /// after the card's number was last typed.
    public var removalAssumed = false
    /// The tag id this event's presence was given at its arrival, for the events
    /// after it (which carry no URI); nil: worked out from this event (`tagID`).
    public var presenceTagID: String?
    /// For a `tag.arrived` of this daemon's own reader: place → this event as far as
    /// the reader can tell, from the start of the look at the field that found the tag
    /// (PC/SC: from pcscd's report of the card) to the event, the tag read. Kept in
    /// process for the reader's latency figures (`status`, `/metrics`); not in the JSON.
    public var arrivalLatency: Duration?

    public init(
        kind: Kind, id: String = UUID().uuidString.lowercased(), time: Date = Date(), reader: String,
        tag: TagInfo? = nil, ndef: JSONValue? = nil, ndefError: String? = nil, uri: String? = nil,
        text: String? = nil, dwellMs: Int? = nil, message: String? = nil, presenceTagID: String? = nil, node: String? = nil
    ) {
        self.kind = kind
        self.id = id
        self.time = time
        self.reader = reader
        self.node = node
        self.tag = tag
        self.storedNDEF = ndef.map(LazyJSONValue.value)
        self.ndefError = ndefError
        self.uri = uri
        self.text = text
        self.dwellMs = dwellMs
        self.message = message
        self.presenceTagID = presenceTagID
    }

    /// The prefix of a Home Assistant tag URL; what follows it is the HA tag id.
    public static let homeAssistantTagPrefix = "https://www.home-assistant.io/tag/"

    /// The id Home Assistant knows the tag by: the one its presence was given at
    /// arrival, else the `<id>` of a first URI `https://www.home-assistant.io/tag/<id>`,
    /// else the UID as an ESPHome reader spells it (`04-A2-24-B2-C3-5E-80`).
    public var tagID: String? {
        if let presenceTagID { return presenceTagID }
        if let uri, uri.hasPrefix(Self.homeAssistantTagPrefix) {
            let id = uri.dropFirst(Self.homeAssistantTagPrefix.count)
            if !id.isEmpty { return String(id) }
        }
        return tag?.uid.dashed
    }
}

/// What the reader learned about a tag in the field; the `tag` object of an event.
public struct TagInfo: Sendable, Equatable {
    public var uid: TagUID
    /// Product name in lowercase, e.g. `ntag215`, `mifare-ultralight`, `mifare-classic-1k`, `type4`.
    public var type: String
    /// NFC Forum tag type 1…5, nil when the tag is not an NFC Forum tag.
    public var nfcForumType: Int?
    public var atqa: [UInt8]
    public var sak: UInt8?
    /// Bytes available for an NDEF message, when known.
    public var ndefCapacity: Int?
    public var writable: Bool?
    /// The tag's name from the config's `tags:`, when it is a known tag.
    public var name: String?
    /// The groups of a known tag.
    public var groups: [String]
    /// What checking the tag's SUN message found (`sun:` in the config), for a
    /// tag whose URI carries one; worked out here, never read from a message.
    public var sun: SUNCheck?
    /// The tag's NXP originality signature (READ_SIG, 32 bytes), when the reader read one.
    public var signature: [UInt8]?
    /// What checking `signature` against NXP's public keys found; nil when nobody checked.
    public var genuine: GenuineCheck?

    public init(
        uid: TagUID, type: String, nfcForumType: Int? = nil, atqa: [UInt8] = [], sak: UInt8? = nil,
        ndefCapacity: Int? = nil, writable: Bool? = nil, name: String? = nil, groups: [String] = []
    ) {
        self.uid = uid
        self.type = type
        self.nfcForumType = nfcForumType
        self.atqa = atqa
        self.sak = sak
        self.ndefCapacity = ndefCapacity
        self.writable = writable
        self.name = name
        self.groups = groups
    }
}
