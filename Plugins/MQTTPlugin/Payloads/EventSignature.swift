import TagCrypto

/// The signature a tagrouter node puts on what it publishes: HMAC-SHA256
/// (libcrypto) over the exact payload bytes with the node's key, carried in two
/// MQTT 5 user properties beside the payload — the key id and the lowercase hex
/// digest — so the payload itself stays the plain v1 event for Home Assistant,
/// Node-RED and any other subscriber (docs/fleet.md, docs/security.md).
struct EventSignature: Sendable {
    /// The user property naming the key (`pi-1`).
    static let keyIDProperty = "tagrouter-key-id"
    /// The user property holding `HMAC-SHA256(key, payload)` as 64 lowercase hex digits.
    static let digestProperty = "tagrouter-hmac-sha256"
    /// Keys shorter than this are refused at load: a short shared secret can be guessed offline.
    static let minimumKeyLength = 16
    /// Key ids are short names: at most this many bytes, no control characters.
    static let keyIDLimit = 64

    /// A named key, as read from its file.
    struct Key: Sendable {
        let id: String
        let secret: [UInt8]
    }

    /// Why a message's signature is not accepted; each is counted and logged apart.
    enum Problem: String, Sendable, CaseIterable {
        case unsigned = "unsigned"
        case unknownKey = "unknown key id"
        case badSignature = "bad signature"
    }

    /// The two user properties that sign `payload` with `key`.
    static func properties(signing payload: [UInt8], with key: Key) -> [MQTTMessage.UserProperty] {
        [.init(keyIDProperty, key.id), .init(digestProperty, hex(digest(payload, key: key.secret)))]
    }

    /// Nil when `properties` sign `payload` with one of `keys`, else why not.
    static func problem(with payload: [UInt8], properties: [MQTTMessage.UserProperty], keys: [String: Key]) -> Problem? {
        guard let keyID = properties.first(where: { $0.name == keyIDProperty })?.value,
            let claimed = properties.first(where: { $0.name == digestProperty })?.value
        else { return .unsigned }
        guard let key = keys[keyID] else { return .unknownKey }
        let expected = Array(hex(digest(payload, key: key.secret)).utf8)
        let given = Array(claimed.utf8)
        guard !expected.isEmpty, given.count == expected.count else { return .badSignature }
        return ConstantTime.equal(expected, given) ? nil : .badSignature
    }

    /// Why `secret` cannot be a key, or nil.
    static func problem(withSecret secret: String) -> String? {
        secret.utf8.count < minimumKeyLength
            ? "the key is \(secret.utf8.count) bytes; use at least \(minimumKeyLength) random bytes (`openssl rand -hex 32 > key`)" : nil
    }

    /// Why `id` cannot be a key id, or nil.
    static func problem(withKeyID id: String) -> String? {
        if id.isEmpty || id.utf8.count > keyIDLimit { return "a key id is 1 to \(keyIDLimit) bytes" }
        if id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return "a key id holds no control characters" }
        return nil
    }

    private static func digest(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        // HMAC fails only without memory; an empty digest then matches nothing.
        HMACSHA256.digest(message, key: key) ?? []
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
