import TagKit

/// What a PC/SC part 3 reader with an ISO 15693 front end (ACS ACR1552U, HID
/// OMNIKEY 5022) answers for an ICODE card in its field: the ATR's standard byte
/// `0B` (ISO 15693 part 3) with NXP's card name `00 14`, the UID through GET DATA
/// least significant byte first (as it travels over the air, `… 04 E0`), and
/// READ BINARY `FF B0 hi lo Le` with the block number as the address and Le a
/// whole number of blocks; another Le gets `6C 04` (wrong length: one block is
/// 4 bytes), a block past the end `6A 82`.
enum VicinityStorage {
    static let standard: UInt8 = 0x0B
    static let cardName: UInt16 = 0x0014
    static let blockSize = 4
    static let endOfMemory: [UInt8] = [0x6A, 0x82]

    /// The UID as GET DATA gives it: least significant byte first.
    static func readerUID(_ uid: [UInt8]) -> [UInt8] { uid.reversed() }

    /// READ BINARY: each block through the card's READ SINGLE BLOCK (`02 20 block`).
    static func readBinary(_ apdu: [UInt8], tag: inout any SimulatedTag) -> [UInt8] {
        guard apdu.count == 5 else { return ContactlessReaderEmulation.wrongLength }
        let length = Int(apdu[4])
        guard length > 0, length % blockSize == 0 else { return [0x6C, UInt8(blockSize)] }
        let first = Int(apdu[2]) << 8 | Int(apdu[3])
        var data: [UInt8] = []
        for block in first..<(first + length / blockSize) {
            guard block <= 0xFF else { return endOfMemory }
            guard let answer = try? tag.exchange([0x02, 0x20, UInt8(block)]) else { return ContactlessReaderEmulation.failed }
            guard answer.first == 0x00 else { return endOfMemory }
            data += answer.dropFirst()
        }
        return data + ContactlessReaderEmulation.ok
    }
}
