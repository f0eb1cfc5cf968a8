/// What checking a tag's Secure Unique NFC message (NTAG 424 DNA SUN) found:
/// verified, with the UID and read counter the tag signed, or refused with a
/// reason. The event carries it as `tag.sun`; it is worked out by this daemon
/// for every event it routes and never taken from a message.
public struct SUNCheck: Sendable, Equatable {
    /// Why a SUN message was not accepted.
    public enum Failure: String, Error, Sendable, CaseIterable {
        /// The MAC does not match: the URL was altered or made without the key.
        case macMismatch = "mac-mismatch"
        /// The counter is not above the last one accepted for this UID: a copied URL.
        case replayedCounter = "replayed-counter"
        /// No configured key decrypts the PICC data into a well-formed block.
        case unknownKey = "unknown-key"
        /// A SUN parameter is there but is not of the expected length or not hex.
        case malformed
        /// The tag signed another UID than the one the reader saw.
        case uidMismatch = "uid-mismatch"
        /// The URL verified, but its counter could not be written ahead (`state_dir`: a full disk,
        /// permissions): not accepted, since a restart would forget it and let the URL verify again.
        case counterNotStored = "counter-not-stored"
    }

    /// The UID the tag signed (hex, lowercase), when it could be read.
    public var uid: String?
    /// The read counter the tag signed, when it could be read.
    public var counter: Int?
    /// Nil when verified; else why not.
    public var failure: Failure?

    public var verified: Bool { failure == nil }

    public init(uid: String?, counter: Int?, failure: Failure?) {
        self.uid = uid
        self.counter = counter
        self.failure = failure
    }
}
