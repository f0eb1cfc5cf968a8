/// The Type Name Format of a record: how its TYPE field is to be read.
/// Value 7 is reserved and never decoded.
public enum TNF: UInt8, Sendable, Equatable, Hashable, CaseIterable {
    /// No type, no ID, no payload (the empty message is one such record).
    case empty = 0
    /// NFC Forum well-known type (RTD): `U`, `T`, `Sp`, `Hs`, …
    case wellKnown = 1
    /// A media type (RFC 2046) such as `text/plain` or `application/vnd.wfa.wsc`.
    case mediaType = 2
    /// The TYPE field is an absolute URI.
    case absoluteURI = 3
    /// NFC Forum external type `domain:name`, such as `android.com:pkg`.
    case external = 4
    /// Unknown type: an opaque payload with no TYPE field.
    case unknown = 5
    /// A continuation chunk; only inside a chunk sequence on the wire, never in a decoded message.
    case unchanged = 6
}
