/// An NFC Forum Type 2 tag in memory: NTAG213/215/216 or MIFARE Ultralight.
/// Answers READ (`30`), FAST_READ (`3A`, NTAG only), WRITE (`A2`), GET_VERSION
/// (`60`, NTAG only) and READ_SIG (`3C`), honouring the static lock bytes (page 2),
/// the dynamic lock bytes, the one-time-programmable CC, and read-only UID pages.
public struct Type2Tag: SimulatedTag {
    /// The chip, which fixes the memory layout.
    public enum Variant: String, Sendable, CaseIterable {
        case ntag213, ntag215, ntag216
        case mifareUltralight = "mifare-ultralight"

        /// Pages of 4 bytes in the whole memory.
        public var pageCount: Int {
            switch self {
            case .ntag213: return 45
            case .ntag215: return 135
            case .ntag216: return 231
            case .mifareUltralight: return 16
            }
        }

        /// The first page after the user (data) area; the user area starts at page 4.
        public var userAreaEnd: Int {
            switch self {
            case .ntag213: return 40
            case .ntag215: return 130
            case .ntag216: return 226
            case .mifareUltralight: return 16
            }
        }

        /// Bytes of user memory (the data area the CC announces).
        public var userBytes: Int { (userAreaEnd - 4) * 4 }

        /// The page holding the dynamic lock bytes, on chips that have them.
        var dynamicLockPage: Int? {
            self == .mifareUltralight ? nil : userAreaEnd
        }

        /// Pages one dynamic lock bit protects.
        var pagesPerDynamicLockBit: Int { self == .ntag213 ? 2 : 16 }

        /// The GET_VERSION answer; nil for the original Ultralight, which does not know the command.
        public var version: [UInt8]? {
            switch self {
            case .ntag213: return [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]
            case .ntag215: return [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]
            case .ntag216: return [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03]
            case .mifareUltralight: return nil
            }
        }

        /// The factory Capability Container: NDEF magic, mapping 1.0, data area size / 8, read/write.
        public var capabilityContainer: [UInt8] { [0xE1, 0x10, UInt8(userBytes / 8), 0x00] }
    }

    public let variant: Variant
    public private(set) var memory: [UInt8]

    /// A factory-fresh, NFC Forum–formatted tag whose data area starts with `dataArea`
    /// (a TLV area, e.g. from `Type2TLVArea.build`); the rest of the user memory is zero.
    public init(variant: Variant, uid: [UInt8], dataArea: [UInt8]) throws(TagModelError) {
        guard uid.count == 7 else { throw .uidLength(expected: [7], got: uid.count) }
        guard dataArea.count <= variant.userBytes else {
            throw .doesNotFit(size: dataArea.count, capacity: variant.userBytes)
        }
        self.variant = variant
        var image = [UInt8](repeating: 0, count: variant.pageCount * 4)
        image[0...2] = uid[0...2]
        image[3] = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
        image[4...7] = uid[3...6]
        image[8] = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
        image[9] = 0x48
        image[12...15] = variant.capabilityContainer[...]
        image.replaceSubrange(16..<(16 + dataArea.count), with: dataArea)
        if let lockPage = variant.dynamicLockPage {
            image[lockPage * 4 + 3] = 0xBD
            image[(lockPage + 1) * 4] = 0x04
            image[(lockPage + 1) * 4 + 3] = 0xFF
            image[(lockPage + 2) * 4 + 1] = 0x05
            image.replaceSubrange(((lockPage + 3) * 4)..<((lockPage + 4) * 4), with: [0xFF, 0xFF, 0xFF, 0xFF])
        }
        memory = image
    }

    /// A tag holding exactly `image` (every page, UID and lock bytes included), e.g. from a dump.
    public init(variant: Variant, image: [UInt8]) throws(TagModelError) {
        guard image.count == variant.pageCount * 4 else {
            throw .imageSize(expected: variant.pageCount * 4, got: image.count)
        }
        self.variant = variant
        memory = image
    }

    public var typeName: String { variant.rawValue }

    public var activation: TagActivation {
        TagActivation(uid: Array(memory[0...2] + memory[4...7]), atqa: [0x00, 0x44], sak: 0x00)
    }

    public mutating func reset() {}

    public mutating func exchange(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
        guard let code = command.first else { throw .tagRemoved }
        switch (code, command.count) {
        case (0x30, 2):
            return try read(page: Int(command[1]))
        case (0x3A, 3) where variant.version != nil:
            return try fastRead(from: Int(command[1]), to: Int(command[2]))
        case (0xA2, 6):
            try write(page: Int(command[1]), Array(command[2...5]))
            return []
        case (0x60, 1):
            guard let version = variant.version else { throw .tagRemoved }
            return version
        case (0x3C, 2) where variant.version != nil:
            return [UInt8](repeating: 0, count: 32)
        default:
            throw .tagRemoved
        }
    }

    private static let nak: TagTransportError = .refused(status: [0x00])

    private func pageBytes(_ page: Int) -> ArraySlice<UInt8> {
        if let lockPage = variant.dynamicLockPage, page == lockPage + 3 {
            return [0, 0, 0, 0]  // PWD always reads as zeros
        }
        return memory[(page * 4)..<(page * 4 + 4)]
    }

    private func read(page: Int) throws(TagTransportError) -> [UInt8] {
        guard page < variant.pageCount else { throw Self.nak }
        return (0..<4).flatMap { pageBytes((page + $0) % variant.pageCount) }
    }

    private func fastRead(from start: Int, to end: Int) throws(TagTransportError) -> [UInt8] {
        guard start <= end, end < variant.pageCount else { throw Self.nak }
        return (start...end).flatMap { pageBytes($0) }
    }

    private mutating func write(page: Int, _ data: [UInt8]) throws(TagTransportError) {
        guard page >= 2, page < variant.pageCount, !isLocked(page: page) else { throw Self.nak }
        let base = page * 4
        if page == 2 {
            memory[base + 2] |= data[2]
            memory[base + 3] |= data[3]
        } else if page == 3 || page == variant.dynamicLockPage {
            for index in 0..<4 { memory[base + index] |= data[index] }
        } else {
            memory.replaceSubrange(base..<(base + 4), with: data)
        }
    }

    /// Whether the lock bits forbid writing `page`.
    func isLocked(page: Int) -> Bool {
        let lock0 = memory[10], lock1 = memory[11]
        switch page {
        case 3...7: return lock0 & (1 << UInt8(page)) != 0
        case 8...15: return lock1 & (1 << UInt8(page - 8)) != 0
        case 16..<variant.userAreaEnd:
            guard let lockPage = variant.dynamicLockPage else { return false }
            let bit = (page - 16) / variant.pagesPerDynamicLockBit
            guard bit < 16 else { return false }
            return memory[lockPage * 4 + bit / 8] & (1 << UInt8(bit % 8)) != 0
        default:
            return false
        }
    }
}
