import SystemKit
import TagCore
import TagCrypto

/// The originality check of a tag: its READ_SIG signature against NXP's public
/// keys (`tag.genuine`). The reader checks what it reads; the router checks
/// events that bring a `tag.signature` but no verdict (from a node over MQTT, an
/// events file, `--explain`), so `genuine` always comes from this daemon.
public enum OriginalityCheck {
    /// The verdict on `signature` for `uid`: `unknown` without a signature, or when libcrypto fails.
    public static func verdict(uid: TagUID, signature: [UInt8]?) -> GenuineCheck {
        guard let signature else { return .unknown }
        do {
            return try OriginalitySignature.verify(uid: uid.bytes, signature: signature) ? .genuine : .notGenuine
        } catch {
            Log.error("originality signature not checked: \(error)")
            return .unknown
        }
    }

    /// `event` with `tag.genuine` from its `tag.signature`, when it has a signature and no verdict yet.
    public static func checked(_ event: TagEvent) -> TagEvent {
        guard let tag = event.tag, tag.genuine == nil, let signature = tag.signature else { return event }
        var checked = event
        checked.tag?.genuine = verdict(uid: tag.uid, signature: signature)
        return checked
    }
}
