import OrderedJSON
import SecureTags
import TagKit

/// The `sun` object of an `ntag424` tag in a control request: the keys it was
/// personalised with (32 hex digits each; AN12196's all-zero factory keys when
/// left out), its read counter, its URL before the SUN parameters, and, with
/// `diversify`, `fileKey` as the AN10922 master key of its K_SDMFileRead.
struct SUNTagSpec {
    var metaKey: String?
    var fileKey: String?
    var counter: Int?
    var url: String?
    var diversify: Diversify?

    /// AN10922's diversification input after the UID: `aid` and `systemIdentifier`, hex.
    struct Diversify {
        var aid: String?
        var systemIdentifier: String?
    }

    init() {}

    init(_ fields: JSONFields) throws(JSONFieldError) {
        metaKey = try fields.string("metaKey")
        fileKey = try fields.string("fileKey")
        counter = try fields.int("counter")
        url = try fields.string("url")
        if let diversify = try fields.object("diversify") {
            self.diversify = Diversify(aid: try diversify.string("aid"), systemIdentifier: try diversify.string("systemIdentifier"))
        }
    }

    static let defaultURL = "https://sun.example/tap"

    /// The tag with `uid`; without `counter`, its read counter is `lastCounter` (the tag was here before) or 0.
    func makeTag(uid: [UInt8], lastCounter: Int?) throws(ControlError) -> NTAG424DNATag {
        guard uid.count == 7 else { throw ControlError("an ntag424 has a 7-byte UID, not \(uid.count) bytes") }
        if let counter, !(0..<NTAG424DNATag.counterLimit).contains(counter) {
            throw ControlError("sun.counter must be 0 to \(NTAG424DNATag.counterLimit - 1) (a 24-bit read counter), not \(counter)")
        }
        var keys = SUNKeys(id: "simulated", metaRead: try Self.key(metaKey, field: "sun.metaKey"), fileRead: try Self.key(fileKey, field: "sun.fileKey"))
        if let diversify {
            keys.diversification = SUNKeyDiversification(
                applicationID: try TagSpec.hex(diversify.aid ?? "", field: "sun.diversify.aid"),
                systemIdentifier: try TagSpec.hex(diversify.systemIdentifier ?? "", field: "sun.diversify.systemIdentifier"))
        }
        do {
            return try NTAG424DNATag(mirror: try SUNMirror(keys: keys, uid: uid), url: url ?? Self.defaultURL, readCounter: counter ?? lastCounter ?? 0)
        } catch {
            throw ControlError("ntag424: \(error)")
        }
    }

    private static func key(_ text: String?, field: String) throws(ControlError) -> [UInt8] {
        guard let text else { return [UInt8](repeating: 0, count: 16) }
        let key = try TagSpec.hex(text, field: field)
        guard key.count == 16 else { throw ControlError("\(field) is an AES-128 key: 32 hex digits, not \(key.count * 2)") }
        return key
    }
}
