import TagCore
import TagKit

/// Identifies the selected tag (ATQA/SAK, GET_VERSION for Type 2, ATS) and reads
/// its NDEF message through the TagKit driver for its type.
enum TagInspector {
    /// A tag identified and ready for its driver.
    struct Identified {
        var info: TagInfo
        var driver: (any NDEFTagDriver)?
    }

    /// Names the tag. Asking a Type 2 tag for its version leaves an original
    /// Ultralight (which does not know GET_VERSION) mute, so after a failed
    /// GET_VERSION the tag is selected again; nil when it is gone.
    static func identify(_ target: NFCTarget, on device: NFCDevice) -> Identified? {
        var version: [UInt8]?
        if target.sak == 0x00, target.atqa.last == 0x44 {
            if case .success(let answer) = device.transceiveRaw([0x60], timeoutMs: 100), answer.count == 8 {
                version = answer
            } else if reselect(target.uid, on: device) == nil {
                return nil
            }
        }
        let transport = LibNFCTransport(device: device)
        let identity = TagIdentity.identify(atqa: target.atqa, sak: target.sak, getVersion: version, ats: target.ats.isEmpty ? nil : target.ats)
        let info = TagInfo(uid: target.uid, type: identity.type, nfcForumType: identity.nfcForumType, atqa: target.atqa, sak: target.sak)
        return Identified(info: info, driver: TagDrivers.driver(forType: identity.type, uid: target.uid.bytes, transport: transport))
    }

    /// Identifies the tag and reads its NDEF message; what went wrong is in `ndefError`.
    static func inspect(_ target: NFCTarget, on device: NFCDevice) -> TagReadout {
        guard let tag = identify(target, on: device) else {
            return TagReadout(target: target, ndefError: TagReadout.removedDuringRead)
        }
        guard let driver = tag.driver else {
            return TagReadout(info: tag.info, ndefError: "tagrouter reads no NDEF from \(tag.info.type) tags")
        }
        var info = tag.info
        do {
            let content = try driver.read()
            info.ndefCapacity = content.capacity
            info.writable = content.writable
            var readout = TagReadout(info: info)
            if let message = content.message { readout.decode(message: message) }
            return readout
        } catch {
            return TagReadout(info: info, ndefError: error.description)
        }
    }

    /// Resets the field and selects the tag with `uid`; nil when it did not answer
    /// (or the device failed, which `device.lost` then says).
    static func reselect(_ uid: TagUID, on device: NFCDevice) -> NFCTarget? {
        do {
            try device.resetField()
            return try device.select(uid: uid.bytes)
        } catch {
            if error.isDeviceLost { device.lost = error }
            return nil
        }
    }

    /// What anticollision alone tells (for a tag that left before it could be read).
    static func identity(of target: NFCTarget) -> TagInfo {
        let identity = TagIdentity.identify(atqa: target.atqa, sak: target.sak, ats: target.ats.isEmpty ? nil : target.ats)
        return TagInfo(uid: target.uid, type: identity.type, nfcForumType: identity.nfcForumType, atqa: target.atqa, sak: target.sak)
    }
}
