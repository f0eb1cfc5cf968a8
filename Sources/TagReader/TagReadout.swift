import NDEF
import OrderedJSON
import TagCore
import TagKit

/// What reading a tag yielded: its identity and, when it could be read, its NDEF
/// message fields as the event carries them.
package struct TagReadout: Sendable {
    package var info: TagInfo
    package var ndef: JSONValue?
    package var ndefError: String?
    package var uri: String?
    package var text: String?

    package static let removedDuringRead = "tag removed during read"

    package init(info: TagInfo, ndef: JSONValue? = nil, ndefError: String? = nil, uri: String? = nil, text: String? = nil) {
        self.info = info
        self.ndef = ndef
        self.ndefError = ndefError
        self.uri = uri
        self.text = text
    }

    /// Fills the NDEF fields from the message bytes read off the tag: whatever
    /// decodes goes into `ndef`, the first defect into `ndefError`.
    /// An empty NDEF TLV (a formatted, blank tag) leaves `ndef` null.
    package mutating func decode(message bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let (message, error) = NDEFMessage.decodeLenient(bytes)
        ndef = message.json
        uri = message.firstURI
        text = message.firstText
        ndefError = error.map { "NDEF message: \($0)" }
    }

    /// The `tag.arrived` event for this readout; `sensed`: when the scan loop began the
    /// look that found the tag (the start of its `arrivalLatency`).
    package func arrivedEvent(reader: String, sensed: ContinuousClock.Instant? = nil) -> TagEvent {
        var event = TagEvent(kind: .tagArrived, reader: reader, tag: info, ndef: ndef, ndefError: ndefError, uri: uri, text: text)
        event.arrivalLatency = sensed.map { .now - $0 }
        return event
    }
}
