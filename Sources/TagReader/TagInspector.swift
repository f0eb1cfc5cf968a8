import SecureTags
import TagCore
import TagKit

/// Identifies the selected tag (ATQA/SAK, GET_VERSION for Type 2, ATS, FeliCa
/// system code, Jewel SENS_RES) and reads its NDEF message through the TagKit
/// driver for its type.
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
        if target.modulation == .iso14443A, target.sak == 0x00, target.atqa.last == 0x44 {
            if case .success(let answer) = device.transceiveRaw([0x60], timeoutMs: 100), answer.count == 8 {
                version = answer
            } else if reselect(target, on: device) == nil {
                return nil
            }
        }
        let info = identity(of: target, getVersion: version)
        let driver = TagDrivers.driver(forType: info.type, uid: target.uid.bytes, transport: LibNFCTransport(device: device))
        return Identified(info: info, driver: driver)
    }

    /// Reads an identified tag's NDEF message through its driver (libnfc and PC/SC
    /// alike), then its originality signature when it has one and `signature` asks for it.
    static func read(_ tag: Identified, signature: Bool = true) -> TagReadout {
        var readout = readNDEF(tag)
        if signature, TagIdentity.hasOriginalitySignature(readout.info.type), let driver = tag.driver as? Type2Driver {
            // Last, so that a chip which NAKs READ_SIG (and goes idle) has been read already; one exchange.
            if readout.ndefError != TagReadout.removedDuringRead { readout.info.signature = try? driver.originalitySignature() }
            readout.info.genuine = OriginalityCheck.verdict(uid: readout.info.uid, signature: readout.info.signature)
        }
        return readout
    }

    private static func readNDEF(_ tag: Identified) -> TagReadout {
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

    /// Resets the field and selects `target` again; nil when it did not answer
    /// (or the device failed, which `device.lost` then says).
    static func reselect(_ target: NFCTarget, on device: NFCDevice) -> NFCTarget? {
        do {
            try device.resetField()
            return try device.select(target)
        } catch {
            if error.isDeviceLost { device.lost = error }
            return nil
        }
    }

    /// What activation tells (and GET_VERSION, when a Type 2 tag answered it).
    static func identity(of target: NFCTarget, getVersion: [UInt8]? = nil) -> TagInfo {
        let identity: (type: String, nfcForumType: Int?)
        switch target.modulation {
        case .felica:
            identity = TagIdentity.identify(felicaSystemCode: target.systemCode)
        case .iso14443A, .jewel:
            identity = TagIdentity.identify(
                atqa: target.atqa, sak: target.sak ?? 0, getVersion: getVersion, ats: target.ats.isEmpty ? nil : target.ats)
        }
        return TagInfo(uid: target.uid, type: identity.type, nfcForumType: identity.nfcForumType, atqa: target.atqa, sak: target.sak)
    }
}
