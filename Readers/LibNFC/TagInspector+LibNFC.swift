import TagCore
import TagKit
import TagReader

/// Identifies the tag libnfc selected: ATQA/SAK, GET_VERSION for Type 2, ATS,
/// FeliCa system code, Jewel SENS_RES.
extension TagInspector {
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
