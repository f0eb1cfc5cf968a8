import TagReader
import CNFC
import TagKit

/// `TagTransport` over a libnfc device: the selected tag's bytes go through
/// `nfc_initiator_transceive_bytes` (the PN53x adds CRC, parity and, for ISO-DEP
/// tags, the block framing).
public struct LibNFCTransport: TagTransport {
    let device: NFCDevice
    /// How long the tag may take to answer one command.
    let timeoutMs: Int32

    init(device: NFCDevice, timeoutMs: Int32 = 500) {
        self.device = device
        self.timeoutMs = timeoutMs
    }

    public func transceive(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
        switch device.transceive(command, timeoutMs: timeoutMs) {
        case .success(let answer):
            return answer
        case .failure(let error) where error.isDeviceLost:
            device.lost = error
            throw .readerFailed(error.description)
        case .failure(let error) where error.code == NFC_ETIMEOUT || error.code == NFC_ETGRELEASED:
            throw .tagRemoved
        case .failure:
            // The PN53x reports a NAK and a tag gone silent alike (RF error):
            // ask the tag whether it is still there to tell them apart.
            let present = (try? device.selectedTargetIsPresent()) ?? false
            if present { throw .refused(status: []) }
            throw .tagRemoved
        }
    }
}
