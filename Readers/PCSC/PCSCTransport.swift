import TagKit
import TagReader

/// `TagTransport` over a PC/SC card: the bytes are an APDU, sent as they are
/// (a Type 4 tag's SELECT / READ BINARY / UPDATE BINARY), the answer comes back
/// with its status word. A card that left is `.tagRemoved`; pcscd or the reader
/// gone is `.readerFailed`.
struct PCSCTransport: TagTransport {
    let card: PCSCCard

    func transceive(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
        let answer: [UInt8]
        do {
            answer = try card.transmit(command)
        } catch where error.isCardGone {
            throw .tagRemoved
        } catch {
            throw .readerFailed(error.description)
        }
        // Every answer ends in a status word. An exchange that "succeeds" with none is
        // the link to the card breaking mid-command: vpcd passes its card hanging up on
        // as an empty answer, before pcscd's next presence poll reports the removal.
        guard answer.count >= 2 else { throw .tagRemoved }
        return answer
    }

    /// Sends a pseudo-APDU of the reader (`FF …`) and returns its data when the status is `90 00`.
    func readerCommand(_ apdu: [UInt8]) throws(TagTransportError) -> [UInt8] {
        let answer = try transceive(apdu)
        guard answer.count >= 2, answer.suffix(2) == [0x90, 0x00] else { throw .refused(status: Array(answer.suffix(2))) }
        return Array(answer.dropLast(2))
    }
}

/// A storage card behind a PC/SC reader: the commands TagKit's drivers send,
/// as a PN532 takes them, become the reader's storage-card commands of PC/SC
/// part 3, so one driver per tag type serves libnfc and PC/SC alike.
/// - READ (`30 n`) becomes READ BINARY `FF B0 00 n 10`: four Type 2 pages or
///   one MIFARE Classic block; Type 2 FAST_READ (`3A a b`) becomes as many.
/// - Type 2 WRITE (`A2 p d0…d3`) becomes UPDATE BINARY `FF D6 00 p 04 d0…d3`,
///   MIFARE Classic WRITE (`A0 b d0…d15`) `FF D6 00 b 10 d0…d15`.
/// - MIFARE Classic authentication (`60|61 block key uid`) becomes LOAD KEYS
///   `FF 82 00 00 06 key` (the reader's volatile key slot 0), then GENERAL
///   AUTHENTICATE `FF 86 00 00 05 01 00 block 60|61 00`; the reader runs
///   Crypto1 with the card, as a PN532 does.
struct StorageCardTransport: StorageCommandsTransport {
    let reader: PCSCTransport

    func transceive(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
        switch command.first {
        case 0x30 where command.count == 2:
            return try readPages(from: command[1], bytes: 16)
        case 0x3A where command.count == 3 && command[2] >= command[1]:
            return try readPages(from: command[1], bytes: (Int(command[2]) - Int(command[1]) + 1) * 4)
        case 0xA2 where command.count == 6, 0xA0 where command.count == 18:
            _ = try reader.readerCommand([0xFF, 0xD6, 0x00, command[1], UInt8(command.count - 2)] + command[2...])
            return []
        case 0x60 where command.count == 12, 0x61 where command.count == 12:
            _ = try reader.readerCommand([0xFF, 0x82, 0x00, Self.keySlot, 0x06] + command[2...7])
            _ = try reader.readerCommand([0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, 0x00, command[1], command[0], Self.keySlot])
            return []
        default:
            // GET_VERSION, READ_SIG and the like have no storage-card form.
            throw .refused(status: [])
        }
    }

    /// The reader's volatile key slot authentication loads its key into.
    static let keySlot: UInt8 = 0x00

    /// `bytes` bytes from page `first` on, 16 (four pages) per READ BINARY.
    private func readPages(from first: UInt8, bytes: Int) throws(TagTransportError) -> [UInt8] {
        var data: [UInt8] = []
        while data.count < bytes {
            let page = UInt8(truncatingIfNeeded: Int(first) + data.count / 4)
            let chunk = try reader.readerCommand([0xFF, 0xB0, 0x00, page, 0x10])
            guard !chunk.isEmpty else { throw .refused(status: []) }
            data += chunk
        }
        return Array(data.prefix(bytes))
    }
}
