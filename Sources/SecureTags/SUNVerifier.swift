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
                let session = try SUNSession(fileReadKey: try keySet.fileReadKey(uid: uid), uid: uid, counter: counter)
                guard ConstantTime.equal(try session.mac(over: message.macInput), message.mac) else {
                    failure = .macMismatch
                    continue
                }
                var fileData: [UInt8]?
                if let encrypted = message.encryptedData { fileData = try session.decryptFileData(encrypted) }
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
            return PICCData.decrypt(data, metaReadKey: keys.metaRead)
        }
    }
}
