/// One logical NDEF record: TNF, TYPE, ID and PAYLOAD, after chunk reassembly.
/// The flags of the wire format (MB, ME, CF, SR, IL) are not stored: the encoder
/// derives them from the record's place in the message and the field lengths.
///
/// `content` gives the typed reading of the payload (URI, Text, Smart Poster, …).
public struct NDEFRecord: Sendable, Equatable {
    /// How `type` is to be read.
    public var tnf: TNF
    /// The TYPE field (`U`, `text/plain`, `android.com:pkg`, …).
    public var type: [UInt8]
    /// The ID field; empty when the record has none.
    public var id: [UInt8]
    /// The PAYLOAD field.
    public var payload: [UInt8]

    public init(tnf: TNF, type: [UInt8] = [], id: [UInt8] = [], payload: [UInt8] = []) {
        self.tnf = tnf
        self.type = type
        self.id = id
        self.payload = payload
    }

    /// The empty record (TNF 0); a message of just this record is the empty NDEF message.
    public static let empty = NDEFRecord(tnf: .empty)

    /// A well-known URI record; the longest matching identifier code abbreviates `uri`.
    public static func uri(_ uri: String) -> NDEFRecord {
        NDEFRecord(tnf: .wellKnown, type: [0x55], payload: URIPrefix.payload(for: uri))
    }

    /// A well-known Text record in UTF-8 with the IANA language tag `locale` (`en`, `de-CH`).
    public static func text(_ text: String, locale: String = "en") -> NDEFRecord {
        NDEFRecord(tnf: .wellKnown, type: [0x54], payload: NDEFText(text: text, language: locale).payload)
    }

    /// A media-type record: `mime("application/json", bytes)`.
    public static func mime(_ mediaType: String, _ payload: some Sequence<UInt8>) -> NDEFRecord {
        NDEFRecord(tnf: .mediaType, type: Array(mediaType.utf8), payload: Array(payload))
    }

    /// An `application/json` media record holding `json` (the text as given).
    public static func json(_ json: String) -> NDEFRecord {
        mime("application/json", json.utf8)
    }

    /// An NFC Forum external type record (`domain:name`).
    public static func external(_ type: String, _ payload: some Sequence<UInt8>) -> NDEFRecord {
        NDEFRecord(tnf: .external, type: Array(type.utf8), payload: Array(payload))
    }

    /// An Android Application Record: Android opens (or offers to install) `package`.
    public static func androidApp(_ package: String) -> NDEFRecord {
        external(AndroidApplicationRecord.type, package.utf8)
    }

    /// An absolute-URI record (TNF 3): the URI is the TYPE field.
    public static func absoluteURI(_ uri: String, payload: some Sequence<UInt8> = []) -> NDEFRecord {
        NDEFRecord(tnf: .absoluteURI, type: Array(uri.utf8), payload: Array(payload))
    }

    /// A Smart Poster: a URI with optional titles, action, size and type.
    public static func smartPoster(_ poster: SmartPoster) -> NDEFRecord {
        NDEFRecord(tnf: .wellKnown, type: SmartPoster.type, payload: poster.payload)
    }

    /// A Wi-Fi credential (`application/vnd.wfa.wsc`) that phones offer to join.
    public static func wifi(_ credential: WiFiCredential) -> NDEFRecord {
        mime(WiFiCredential.mediaType, credential.payload)
    }
}

/// The Android Application Record: an external record `android.com:pkg` whose payload is a package name.
enum AndroidApplicationRecord {
    static let type = "android.com:pkg"
}
