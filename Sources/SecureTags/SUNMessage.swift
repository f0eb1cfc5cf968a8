import TagCore

/// The SUN parts of one tag URL, as bytes, with the bytes the MAC covers.
public struct SUNMessage: Sendable, Equatable {
    /// How the tag mirrors its UID and counter.
    public enum Identity: Sendable, Equatable {
        /// Encrypted PICC data (16 bytes), to decrypt with the meta read key.
        case encrypted([UInt8])
        /// UID (7 bytes) and read counter in the clear.
        case plain(uid: [UInt8], counter: Int)
    }

    public var identity: Identity
    /// The SDMMAC the tag sent (8 bytes).
    public var mac: [UInt8]
    /// Encrypted file data, when the tag mirrors some.
    public var encryptedData: [UInt8]?
    /// What the MAC is computed over: the URL's characters from the encrypted
    /// file data up to the MAC's value (SDMMACInputOffset to SDMMACOffset), or
    /// nothing when no file data is mirrored.
    public var macInput: [UInt8]

    /// The SUN message in `uri`; nil when the URL carries no MAC parameter (not a
    /// SUN URL at all); `.malformed` when it carries one but a part is missing,
    /// repeated with another value, of the wrong length or not hex.
    public static func parse(_ uri: String, parameters: SUNParameters = .standard) throws(SUNMessageError) -> SUNMessage? {
        let query = QueryParameters(uri)
        guard let mac = query.first(parameters.cmac) else { return nil }
        guard let macBytes = hexBytes(mac.value, count: 8) else { throw .malformed("cmac is not 16 hex digits") }
        let identity: Identity
        if let picc = query.first(parameters.piccData) {
            guard let bytes = hexBytes(picc.value, count: 16) else { throw .malformed("picc_data is not 32 hex digits") }
            identity = .encrypted(bytes)
        } else if let uid = query.first(parameters.uid), let counter = query.first(parameters.counter) {
            guard let uidBytes = hexBytes(uid.value, count: 7) else { throw .malformed("uid is not 14 hex digits") }
            guard let counterBytes = hexBytes(counter.value, count: 3) else { throw .malformed("ctr is not 6 hex digits") }
            identity = .plain(uid: uidBytes, counter: counterBytes.reduce(0) { $0 << 8 | Int($1) })
        } else {
            throw .malformed("a MAC without picc_data, or without uid and ctr")
        }
        var encrypted: [UInt8]?
        var macInput: [UInt8] = []
        if let enc = query.first(parameters.encryptedData) {
            guard enc.value.utf8.count % 32 == 0, enc.value.utf8.count <= 512, let bytes = hexBytes(enc.value, count: enc.value.utf8.count / 2)
            else { throw .malformed("enc is not a multiple of 32 hex digits (at most 512)") }
            guard enc.offset < mac.offset else { throw .malformed("enc comes after the MAC") }
            encrypted = bytes
            macInput = Array(query.utf8[enc.offset..<mac.offset])
        }
        return SUNMessage(identity: identity, mac: macBytes, encryptedData: encrypted, macInput: macInput)
    }

    private static func hexBytes(_ text: Substring, count: Int) -> [UInt8]? {
        guard text.utf8.count == count * 2, let uid = TagUID(String(text)) else { return nil }
        return uid.bytes
    }
}

/// Why a URL's SUN parameters could not be read.
public enum SUNMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String)

    public var description: String {
        switch self { case .malformed(let why): "malformed SUN message: \(why)" }
    }
}

/// The `name=value` pairs of a URL's query, each with the byte offset of its value in the URL.
struct QueryParameters {
    struct Parameter {
        let value: Substring
        let offset: Int
    }

    let utf8: [UInt8]
    private var parameters: [(name: Substring, parameter: Parameter)] = []

    init(_ uri: String) {
        utf8 = Array(uri.utf8)
        guard let question = uri.firstIndex(of: "?") else { return }
        var query = uri[uri.index(after: question)...]
        if let fragment = query.firstIndex(of: "#") { query = query[..<fragment] }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let value = pair[pair.index(after: equals)...]
            let offset = uri.utf8.distance(from: uri.utf8.startIndex, to: value.startIndex)
            parameters.append((pair[..<equals], Parameter(value: value, offset: offset)))
        }
    }

    /// The first parameter named by any of `names`, in the order of `names`.
    func first(_ names: [String]) -> Parameter? {
        for name in names {
            if let match = parameters.first(where: { $0.name == name }) { return match.parameter }
        }
        return nil
    }
}
