import TagCore
import TagCrypto

/// Checks SUN messages (NXP AN12196): decrypts the PICC data, derives the
/// session keys by CMAC, recomputes the truncated SDMMAC over the URL's MAC
/// input and compares it in constant time. It knows nothing of counters seen
/// before: `SUNCounterStore` refuses replays.
public struct SUNVerifier: Sendable {
    public let keys: [SUNKeys]
    public let parameters: SUNParameters

    public init(keys: [SUNKeys], parameters: SUNParameters = .standard) {
        self.keys = keys
        self.parameters = parameters
    }

    /// What the tag proved, before the replay check.
    public struct Verified: Sendable, Equatable {
        public var uid: [UInt8]
        public var counter: Int
        /// The decrypted file data, when the tag mirrors some.
        public var fileData: [UInt8]?
        /// The id of the key set that verified it.
        public var keyID: String
    }

    /// The check of `uri`: nil when it carries no SUN message.
    public func verify(_ uri: String) -> Result<Verified, SUNCheck.Failure>? {
        let message: SUNMessage
        do {
            guard let parsed = try SUNMessage.parse(uri, parameters: parameters) else { return nil }
            message = parsed
        } catch {
            return .failure(.malformed)
        }
        return verify(message)
    }

    /// The check of a parsed message against each key set in turn.
    public func verify(_ message: SUNMessage) -> Result<Verified, SUNCheck.Failure> {
        var failure = SUNCheck.Failure.unknownKey
        for keySet in keys {
            guard let (uid, counter) = identity(message.identity, keys: keySet) else { continue }
            do {
                let sessionMAC = try CMAC.aes128(key: keySet.fileRead, Self.sessionVector(0x3C, 0xC3, uid: uid, counter: counter))
                let mac = try CMAC.aes128(key: sessionMAC, message.macInput)
                let truncated = stride(from: 1, to: 16, by: 2).map { mac[$0] }
                guard ConstantTime.equal(truncated, message.mac) else {
                    failure = .macMismatch
                    continue
                }
                var fileData: [UInt8]?
                if let encrypted = message.encryptedData {
                    let sessionENC = try CMAC.aes128(key: keySet.fileRead, Self.sessionVector(0xC3, 0x3C, uid: uid, counter: counter))
                    let cipher = AES128(key: sessionENC)!
                    let iv = try cipher.encrypt(Self.littleEndian(counter) + [UInt8](repeating: 0, count: 13))
                    fileData = try cipher.decrypt(encrypted, iv: iv)
                }
                return .success(Verified(uid: uid, counter: counter, fileData: fileData, keyID: keySet.id))
            } catch {
                failure = .malformed
            }
        }
        return .failure(failure)
    }

    /// The UID and counter: decrypted PICC data whose tag byte says "UID (7 bytes) and counter mirrored", or the plain mirror.
    private func identity(_ identity: SUNMessage.Identity, keys: SUNKeys) -> ([UInt8], Int)? {
        switch identity {
        case .plain(let uid, let counter):
            return (uid, counter)
        case .encrypted(let data):
            guard let cipher = AES128(key: keys.metaRead), let plain = try? cipher.decrypt(data), plain[0] == 0xC7 else { return nil }
            let counter = Int(plain[8]) | Int(plain[9]) << 8 | Int(plain[10]) << 16
            return (Array(plain[1...7]), counter)
        }
    }

    /// SV1 (`C3 3C`, encryption) or SV2 (`3C C3`, MAC): label, counter `00 01`, length `00 80`, UID, counter (LSB first).
    static func sessionVector(_ first: UInt8, _ second: UInt8, uid: [UInt8], counter: Int) -> [UInt8] {
        [first, second, 0x00, 0x01, 0x00, 0x80] + uid + littleEndian(counter)
    }

    private static func littleEndian(_ counter: Int) -> [UInt8] {
        [UInt8(counter & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter >> 16 & 0xFF)]
    }
}
