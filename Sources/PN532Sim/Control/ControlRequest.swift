import NDEF
import OrderedJSON
import TagKit

/// One line of the control protocol (docs/simulator.md), read from its JSON.
struct ControlRequest {
    /// `place`, `replace`, `remove`, `list`, `dump`, `counters`, `feedback`.
    var op: String
    var tag: TagSpec?
    var tags: [TagSpec]?
    var uid: String?
    /// For `remove`: the tag answers this many more exchanges, then leaves.
    var afterExchanges: Int?
    /// For `feedback`: forget the commands returned.
    var clear: Bool?

    /// Reads a request; a `place` or `replace` without `tags` is itself the tag.
    init(_ fields: JSONFields) throws(JSONFieldError) {
        guard let op = try fields.string("op") else {
            throw .missing("op", expected: "the request's op (place, replace, remove, list, dump, counters or feedback)")
        }
        self.op = op
        uid = try fields.string("uid")
        afterExchanges = try fields.int("afterExchanges", in: 0...Int.max)
        clear = try fields.bool("clear")
        tags = try fields.objects("tags", TagSpec.init)
        if op == "place" || op == "replace", tags == nil {
            tag = try TagSpec(fields)
        }
    }
}

/// A tag to put in the field: its type, UID, and content as an NDEF message
/// (`ndef` hex or `records`), or a raw memory `image`; for an NTAG, the
/// originality `signature` READ_SIG answers (64 hex digits; none: it NAKs).
struct TagSpec {
    var type: String
    var uid: String?
    var signature: String?
    var ndef: String?
    var records: [RecordSpec]?
    var image: String?
    var readOnly: Bool?
    var fileSize: Int?
    /// `ntag424` only: its SUN personalisation.
    var sun: SUNTagSpec?

    init(_ fields: JSONFields) throws(JSONFieldError) {
        guard let type = try fields.string("type") else {
            throw .missing(fields.path(of: "type"), expected: "the tag's type (ntag213, ntag215, ntag216, mifare-ultralight, type1, type3, type4, ntag424, mifare-classic-1k, icode-slix or icode-slix2)")
        }
        self.type = type
        uid = try fields.string("uid")
        signature = try fields.string("signature")
        ndef = try fields.string("ndef")
        records = try fields.objects("records", RecordSpec.init)
        image = try fields.string("image")
        readOnly = try fields.bool("readOnly")
        fileSize = try fields.int("fileSize")
        if let sun = try fields.object("sun") { self.sun = try SUNTagSpec(sun) }
    }

    /// Builds the model; errors say which field is wrong. An `ntag424` without a `counter`
    /// goes on from the one `readCounters` noted for its UID.
    func makeTag(readCounters: ReadCounterMemory? = nil) throws(ControlError) -> any SimulatedTag {
        guard sun == nil || type == "ntag424" else { throw ControlError("sun is for type ntag424, not \(type)") }
        let isType2 = Type2TagType(name: type) != nil
        let uidBytes = try uidBytes(defaultLength: type == "type3" ? 8 : isType2 || ["type4", "ntag424", "type1"].contains(type) ? 7 : 4)
        do {
            if let chip = ICODESlixTag.Chip(rawValue: type) {
                // An ISO 15693 UID starts E0 04 01 and names the chip: the random default is one of this chip.
                let uid = self.uid == nil ? ICODESlixTag.uid(chip, serial: Array(uidBytes.suffix(4))) : uidBytes
                if let image { return try ICODESlixTag(chip, uid: uid, image: try Self.hex(image, field: "image")) }
                return try ICODESlixTag(chip, uid: uid, message: try message())
            }
            if let type2 = Type2TagType(name: type) {
                var tag: Type2Tag
                if let image {
                    tag = try Type2Tag(type2, image: try Self.hex(image, field: "image"))
                } else {
                    tag = try Type2Tag(type2, uid: uidBytes, message: try message(), readOnly: readOnly ?? false)
                }
                tag.signature = try originalitySignature(for: type2)
                return tag
            }
            switch type {
            case "type1":
                if let image { return try Type1Tag(image: try Self.hex(image, field: "image")) }
                return try Type1Tag(uid: uidBytes, message: try message())
            case "type3":
                if let image { return try Type3Tag(idm: uidBytes, image: try Self.hex(image, field: "image")) }
                return try Type3Tag(idm: uidBytes, message: try message(), readOnly: readOnly ?? false)
            case "ntag424":
                return try (sun ?? SUNTagSpec()).makeTag(uid: uidBytes, lastCounter: readCounters?.counter(uid: uidBytes))
            case "type4":
                return try Type4Tag(uid: uidBytes, message: try message(), fileSize: fileSize ?? 2048, writable: !(readOnly ?? false))
            case "mifare-classic-1k", "mifare-classic":
                if let image { return try MifareClassicTag(image: try Self.hex(image, field: "image")) }
                return try MifareClassicTag(uid: uidBytes, message: try message())
            default:
                throw ControlError("unknown tag type '\(type)'; use ntag213, ntag215, ntag216, mifare-ultralight, type1, type3, type4, ntag424, mifare-classic-1k, icode-slix or icode-slix2")
            }
        } catch let error as ControlError {
            throw error
        } catch {
            throw ControlError("\(type): \(error)")
        }
    }

    /// `signature` as bytes: 32 of them, on a chip that has READ_SIG.
    private func originalitySignature(for type: Type2TagType) throws(ControlError) -> [UInt8]? {
        guard let signature else { return nil }
        guard type.version != nil else { throw ControlError("signature: an original MIFARE Ultralight has no originality signature; use ntag213, ntag215 or ntag216") }
        let bytes = try Self.hex(signature, field: "signature")
        guard bytes.count == 32 else { throw ControlError("signature is NXP's 32-byte originality signature (64 hex digits), not \(bytes.count) bytes") }
        return bytes
    }

    private func uidBytes(defaultLength: Int) throws(ControlError) -> [UInt8] {
        guard let uid else {
            return [0x04] + (1..<defaultLength).map { _ in UInt8.random(in: 0...255) }
        }
        let digits = uid.filter { $0 != "-" && $0 != ":" && $0 != " " }
        return try Self.hex(digits, field: "uid")
    }

    private func message() throws(ControlError) -> [UInt8] {
        if let ndef { return try Self.hex(ndef, field: "ndef") }
        guard let records else { return [] }
        var built: [NDEFRecord] = []
        for record in records { built.append(try record.record()) }
        return NDEFMessage(records: built).encoded()
    }

    static func hex(_ text: String, field: String) throws(ControlError) -> [UInt8] {
        guard let bytes = Hex.bytes(text) else {
            let digits = text.filter { !" \t\r\n:".contains($0) }
            if !digits.isEmpty, digits.allSatisfy(\.isHexDigit), digits.count % 2 == 1 {
                throw ControlError("\(field) has an odd number of hex digits (\(digits.count)): '\(text.prefix(40))'; each byte is two digits")
            }
            throw ControlError("\(field) is not hex: '\(text.prefix(40))'")
        }
        return bytes
    }
}

/// One record, in the short forms a person types (`{"uri": …}`, `{"text": …,
/// "lang": …}`, `{"mime": …, "data": …}`, `{"json": …}`) or the NDEF vector form
/// (`tnf`, `type`, `payload_hex`).
struct RecordSpec {
    var uri: String?
    var text: String?
    var lang: String?
    var mime: String?
    var data: String?
    var json: String?
    var vector: NDEFRecord?

    init(_ fields: JSONFields) throws(JSONFieldError) {
        uri = try fields.string("uri")
        text = try fields.string("text")
        lang = try fields.string("lang")
        mime = try fields.string("mime")
        data = try fields.string("data")
        json = try fields.string("json")
        if fields.contains("tnf") { vector = try NDEFRecord(vector: fields) }
    }

    func record() throws(ControlError) -> NDEFRecord {
        if let uri { return .uri(uri) }
        if let text { return .text(text, locale: lang ?? "en") }
        if let mime { return .mime(mime, Array((data ?? "").utf8)) }
        if let json { return .json(json) }
        if let vector { return vector }
        throw ControlError("a record needs one of uri, text, mime, json, or tnf/type/payload_hex")
    }
}

/// A request the simulator cannot carry out; the message goes back to the client.
struct ControlError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
