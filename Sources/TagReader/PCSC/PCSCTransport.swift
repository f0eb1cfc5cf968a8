import TagKit

/// `TagTransport` over a PC/SC card: the bytes are an APDU, sent as they are
/// (a Type 4 tag's SELECT / READ BINARY / UPDATE BINARY), the answer comes back
/// with its status word. A card that left is `.tagRemoved`; pcscd or the reader
/// gone is `.readerFailed`.
struct PCSCTransport: TagTransport {
    let card: PCSCCard

    func transceive(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
        do {
            return try card.transmit(command)
        } catch where error.isCardGone {
            throw .tagRemoved
        } catch {
            throw .readerFailed(error.description)
        }
    }

    /// Sends a pseudo-APDU of the reader (`FF …`) and returns its data when the status is `90 00`.
    func readerCommand(_ apdu: [UInt8]) throws(TagTransportError) -> [UInt8] {
        let answer = try transceive(apdu)
        guard answer.count >= 2, answer.suffix(2) == [0x90, 0x00] else { throw .refused(status: Array(answer.suffix(2))) }
        return Array(answer.dropLast(2))
    }
}

/// A Type 2 tag behind a PC/SC reader: the Type 2 commands TagKit's driver
/// sends become the reader's storage-card commands of PC/SC part 3 — READ
/// (`30 p`) and FAST_READ (`3A a b`) become READ BINARY `FF B0 00 p 10`,
/// WRITE (`A2 p d0…d3`) becomes UPDATE BINARY `FF D6 00 p 04 d0…d3` — so the
/// one Type 2 driver serves libnfc and PC/SC alike.
struct StorageCardTransport: TagTransport {
    let reader: PCSCTransport

    func transceive(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
        switch command.first {
        case 0x30 where command.count == 2:
            return try readPages(from: command[1], bytes: 16)
        case 0x3A where command.count == 3 && command[2] >= command[1]:
            return try readPages(from: command[1], bytes: (Int(command[2]) - Int(command[1]) + 1) * 4)
        case 0xA2 where command.count == 6:
            _ = try reader.readerCommand([0xFF, 0xD6, 0x00, command[1], 0x04] + command[2...])
            return []
        default:
            // GET_VERSION, READ_SIG and the like have no storage-card form.
            throw .refused(status: [])
        }
    }

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
