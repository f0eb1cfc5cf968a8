import OrderedJSON

/// What a record means, decoded from its TNF, TYPE and PAYLOAD.
public enum NDEFContent: Sendable, Equatable {
    /// TNF 0.
    case empty
    /// Well-known URI record (`U`), prefix expanded.
    case uri(String)
    /// Well-known Text record (`T`).
    case text(NDEFText)
    /// Well-known Smart Poster (`Sp`).
    case smartPoster(SmartPoster)
    /// Any other well-known type (`Hs`, `Hr`, `ac`, …), kept raw.
    case wellKnown(type: String)
    /// A media-type record; `text` is set for `text/*` and `application/json` payloads in UTF-8.
    case mime(type: String, text: String?)
    /// `application/vnd.wfa.wsc` with a readable credential.
    case wifi(WiFiCredential)
    /// `application/vnd.bluetooth.ep.oob` with an address.
    case bluetooth(BluetoothOOB)
    /// TNF 3: the TYPE field is the URI.
    case absoluteURI(String)
    /// Android Application Record (`android.com:pkg`).
    case androidApp(package: String)
    /// Any other external type, kept raw.
    case external(type: String)
    /// TNF 5, kept raw; `json` is set when the payload is a JSON document.
    case unknown(json: JSONValue?)
    /// TNF 6 outside a chunk sequence (only in hand-built records).
    case unchanged
    /// The payload does not decode as its type says (only in hand-built records:
    /// a decoded message never holds one).
    case invalid(NDEFError)

    /// The URI of a `.uri`, `.absoluteURI` or `.smartPoster`.
    public var uriValue: String? {
        switch self {
        case .uri(let uri), .absoluteURI(let uri): return uri
        case .smartPoster(let poster): return poster.uri
        default: return nil
        }
    }
}

extension NDEFRecord {
    /// The typed reading of the record; `.invalid` when the payload does not decode.
    public var content: NDEFContent {
        do {
            return try decodedContent()
        } catch {
            return .invalid(error)
        }
    }

    /// The typed reading of the record, or the error (offsets relative to the payload).
    public func decodedContent() throws(NDEFError) -> NDEFContent {
        switch tnf {
        case .empty:
            return .empty
        case .wellKnown:
            switch type {
            case [0x55]: return .uri(try URIPrefix.decode(payload[...]))
            case [0x54]: return .text(try NDEFText(payload: payload))
            case SmartPoster.type: return .smartPoster(try SmartPoster(payload: payload))
            default: return .wellKnown(type: typeString)
            }
        case .mediaType:
            return mediaContent()
        case .absoluteURI:
            return .absoluteURI(typeString)
        case .external:
            if MediaTypeEssence(type).equals(MediaTypeEssence.androidApp),
               let package = utf8String(payload) {
                return .androidApp(package: package)
            }
            return .external(type: typeString)
        case .unknown:
            return .unknown(json: try? JSONValue.parse(bytes: payload))
        case .unchanged:
            return .unchanged
        }
    }

    /// Checks that a URI, Text or Smart Poster payload decodes, building as little as
    /// possible (the strict decoder runs this on every record of a message nested `depth` deep).
    func checkContent(nestedIn depth: Int) throws(NDEFError) {
        guard tnf == .wellKnown else { return }
        switch type {
        case [0x55]: try URIPrefix.check(payload[...])
        case [0x54]: _ = try NDEFText.check(payload)
        case SmartPoster.type: _ = try SmartPoster(payload: payload, depth: depth + 1)
        default: break
        }
    }

    /// The TYPE field as text (invalid UTF-8 replaced).
    public var typeString: String { String(decoding: type, as: UTF8.self) }

    private func mediaContent() -> NDEFContent {
        let essence = MediaTypeEssence(type)
        if essence.equals(MediaTypeEssence.wifi), let credential = WiFiCredential(payload: payload) {
            return .wifi(credential)
        }
        if essence.equals(MediaTypeEssence.bluetooth), let oob = BluetoothOOB(payload: payload) {
            return .bluetooth(oob)
        }
        let textual = essence.hasPrefix(MediaTypeEssence.text) || essence.equals(MediaTypeEssence.json)
        return .mime(type: typeString, text: textual ? utf8String(payload) : nil)
    }
}
