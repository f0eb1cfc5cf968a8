import TagReader
import TagKit

/// A FeliCa card behind a PC/SC reader. PC/SC part 3 has no storage-card form
/// for FeliCa's Check and Update with their service and block lists, so readers
/// pass the card's own frames through: ACS (ACR122U, ACR1252U, ACR1255U) take
/// `FF 00 00 00 Lc <frame>` — the frame as TagKit's Type 3 driver builds it,
/// FeliCa's length byte first — and answer with the card's response frame
/// (length byte first) and `90 00`. A card that does not answer is the reader's
/// failure status (`63 00`), `.refused`.
struct FeliCaPassThroughTransport: TagTransport {
    let reader: PCSCTransport

    func transceive(_ frame: [UInt8]) throws(TagTransportError) -> [UInt8] {
        guard !frame.isEmpty, frame.count <= 0xFF else { throw .refused(status: []) }
        return try reader.readerCommand([0xFF, 0x00, 0x00, 0x00, UInt8(frame.count)] + frame)
    }
}
