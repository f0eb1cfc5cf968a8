import NDEF

/// Reads and writes the NDEF message of one kind of tag over a `TagTransport`,
/// so the same code runs on libnfc and on the in-memory tag models.
public protocol NDEFTagDriver {
    /// The tag's NDEF message (raw bytes) with its capacity and writability.
    func read() throws(TagDriverError) -> NDEFTagContent
    /// Replaces the message with `message` (encoded NDEF bytes), refusing before any
    /// write when it does not fit or the tag is read-only, and reading it back after.
    func write(message: [UInt8]) throws(TagDriverError)
    /// Makes the tag permanently read-only. Irreversible.
    func lock() throws(TagDriverError)
}

/// What a driver found on a tag.
public struct NDEFTagContent: Sendable, Equatable {
    /// The NDEF message's bytes; nil when the tag is NFC Forum formatted but holds no NDEF message.
    public var message: [UInt8]?
    /// The largest message (in bytes) the tag can hold.
    public var capacity: Int
    /// Whether the tag takes writes (its CC / GPB grants write access).
    public var writable: Bool

    public init(message: [UInt8]?, capacity: Int, writable: Bool) {
        self.message = message
        self.capacity = capacity
        self.writable = writable
    }
}

extension NDEFTagContent {
    /// The content of a TLV data area (Type 2 pages from 4, MIFARE Classic NDEF
    /// sectors): no message when it has no NDEF TLV, `.malformed` when a TLV is
    /// damaged, naming `place` and the byte (counted from `offset`). `area` may be
    /// the start of a data area of `dataAreaSize` bytes (default: all of it).
    init(tlvArea area: [UInt8], dataAreaSize: Int? = nil, writable: Bool, offset: Int, place: String) throws(TagDriverError) {
        let capacity = Type2TLVArea.capacity(dataAreaSize: dataAreaSize ?? area.count)
        do {
            self.init(message: try Type2TLVArea.parse(area).ndefMessage, capacity: capacity, writable: writable)
        } catch where error.kind == .noNDEFTLV {
            self.init(message: nil, capacity: capacity, writable: writable)
        } catch {
            throw .malformed("\(place) at byte \(error.offset + offset): \(error.detail)")
        }
    }
}

extension NDEFTagContent {
    /// How many bytes from its start a TLV area read so far (`area`) must have for the
    /// walk to reach the end of its NDEF TLV: drivers read a tag's memory in steps, not
    /// all of it. Nil when `area` has enough, or is damaged in what was read.
    static func tlvAreaNeeded(_ area: [UInt8]) -> Int? {
        do {
            _ = try Type2TLVArea.parse(area)
            return nil
        } catch {
            return error.areaNeeded
        }
    }
}

/// Why a driver could not read or write a tag, in words a user can act on.
public enum TagDriverError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The exchange with the tag failed (`.tagRemoved` reads "tag removed during read").
    case transport(TagTransportError)
    /// The tag carries no NFC Forum NDEF structure (no CC, no MAD, no NDEF application).
    case notFormatted(String)
    /// The NDEF structure is damaged (a TLV or length runs past the end).
    case malformed(String)
    /// The message is larger than the tag holds.
    case doesNotFit(size: Int, capacity: Int, tagType: String)
    /// The tag refuses writes (CC or GPB says read-only).
    case readOnly(tagType: String)
    /// Reading back after a write found other bytes than were written.
    case verifyFailed(offset: Int)
    /// The tag answered with the wrong number of bytes.
    case unexpectedAnswer(String)
    /// This kind of tag cannot do that through tagrouter.
    case unsupported(String)
    /// An NTAG 21x whose password guards writes from `firstProtectedPage` on, and no password was given.
    case passwordRequired(tagType: String, firstProtectedPage: Int)
    /// PWD_AUTH answered NAK: the tag holds another password.
    case passwordRefused(tagType: String)
    /// PWD_AUTH succeeded but the tag answered another PACK than the one it was protected with.
    case packMismatch(got: [UInt8], expected: [UInt8])

    public var description: String {
        switch self {
        case .transport(let error): return error.description
        case .notFormatted(let detail): return "tag is not NDEF formatted: \(detail)"
        case .malformed(let detail): return "NDEF data on the tag is damaged: \(detail)"
        case .doesNotFit(let size, let capacity, let tagType):
            return "message is \(size) bytes; this \(Self.displayName(tagType)) holds \(capacity)"
        case .readOnly(let tagType): return "this \(Self.displayName(tagType)) is read-only"
        case .verifyFailed(let offset): return "read-back after writing differs at byte \(offset); the tag may be faulty or was moved"
        case .unexpectedAnswer(let detail): return "tag answered unexpectedly: \(detail)"
        case .unsupported(let detail): return detail
        case .passwordRequired(let tagType, let page):
            return "this \(Self.displayName(tagType)) is password-protected (writes from page \(page) on need its password)"
        case .passwordRefused(let tagType):
            return "the \(Self.displayName(tagType)) refused the password (PWD_AUTH answered NAK): it was protected with another one"
        case .packMismatch(let got, let expected):
            return "tag answered PACK \(Hex.string(got)), expected \(Hex.string(expected)): not the tag you protected, or a different password"
        }
    }

    /// `ntag215` → `NTAG215`, `mifare-classic-1k` → `MIFARE Classic 1K`, `type4` → `Type 4 tag`,
    /// `icode-slix2` → `ICODE SLIX2`.
    public static func displayName(_ type: String) -> String {
        if type.hasPrefix("ntag") { return type.uppercased() }
        if type.hasPrefix("icode-") { return "ICODE " + type.dropFirst(6).uppercased() }
        if ["type1", "type3", "type4"].contains(type) { return "Type \(type.suffix(1)) tag" }
        if type.hasPrefix("mifare-") {
            return "MIFARE " + type.dropFirst(7).split(separator: "-").map { word in
                word.count <= 2 ? word.uppercased() : word.prefix(1).uppercased() + word.dropFirst()
            }.joined(separator: " ")
        }
        return type
    }
}

extension TagTransport {
    /// `transceive`, with failures as driver errors and the answer's length checked when `expecting` is given.
    func exchange(_ command: [UInt8], expecting count: Int? = nil) throws(TagDriverError) -> [UInt8] {
        let answer: [UInt8]
        do {
            answer = try transceive(command)
        } catch {
            throw .transport(error)
        }
        if let count, answer.count != count {
            throw .unexpectedAnswer("\(answer.count) bytes to command \(String(command[0], radix: 16)), expected \(count)")
        }
        return answer
    }
}

/// Picks the driver for a tag type as `TagIdentity` names it.
public enum TagDrivers {
    /// The driver for `type`, or nil when tagrouter has none (FeliCa outside the NFC Forum,
    /// unknown ISO 14443-A). `uid` (the IDm for Type 3) is needed for MIFARE Classic and FeliCa.
    public static func driver(forType type: String, uid: [UInt8], transport: any TagTransport) -> (any NDEFTagDriver)? {
        switch type {
        case "type4": return Type4Driver(transport: transport)
        case "type3": return Type3Driver(transport: transport, idm: uid)
        case "type1": return Type1Driver(transport: transport)
        case "mifare-classic-1k", "mifare-classic-4k", "mifare-mini": return MifareClassicDriver(transport: transport, uid: uid)
        case _ where TagIdentity.identifiesType2(type): return Type2Driver(transport: transport, tagType: type)
        case _ where TagIdentity.identifiesType5(type): return Type5Driver(transport: transport, tagType: type)
        default: return nil
        }
    }
}
