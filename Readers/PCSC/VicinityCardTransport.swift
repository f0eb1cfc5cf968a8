import TagKit
import TagReader

/// An ISO 15693 (NFC Forum Type 5) card behind a PC/SC reader that passes it
/// through as a storage card (ACS ACR1552U, HID OMNIKEY 5022): TagKit's Type 5
/// driver sends the card's own commands, and they become PC/SC part 3's
/// READ BINARY with the block number as the address, the way those readers take it:
/// - READ SINGLE BLOCK (`flags 20 block`) becomes `FF B0 00 block Le`;
///   EXTENDED READ SINGLE BLOCK (`flags 30 lo hi`) `FF B0 hi lo Le`.
/// - The answer comes back as the card gives it: the response flags byte (`00`)
///   and the block. Le is one block: 4 bytes (ICODE, ST25, Tag-it) until the
///   reader answers `6C XX` (wrong length, XX the right one), then XX.
/// A reader's refusal (`6A 82` past the last block, `63 00` the card silent) is `.refused`.
final class VicinityCardTransport: TagTransport {
    let reader: PCSCTransport
    /// Bytes of one block, as the reader last accepted or corrected it.
    private var blockSize: UInt8 = 4

    init(reader: PCSCTransport) {
        self.reader = reader
    }

    func transceive(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
        let address: (high: UInt8, low: UInt8)
        switch command.count >= 2 ? command[1] : nil {
        case 0x20 where command.count == 3: address = (0, command[2])
        case 0x30 where command.count == 4: address = (command[3], command[2])
        default: throw .refused(status: [])  // no portable storage-card form
        }
        var answer = try reader.transceive([0xFF, 0xB0, address.high, address.low, blockSize])
        if answer.count == 2, answer[0] == 0x6C, answer[1] != 0 {
            blockSize = answer[1]
            answer = try reader.transceive([0xFF, 0xB0, address.high, address.low, blockSize])
        }
        guard answer.suffix(2) == [0x90, 0x00], answer.count > 2 else { throw .refused(status: Array(answer.suffix(2))) }
        return [0x00] + answer.dropLast(2)
    }
}
