import NDEF

/// An NFC Forum Type 2 tag in memory: NTAG213/215/216 or MIFARE Ultralight.
/// Answers READ (`30`), FAST_READ (`3A`, NTAG only), WRITE (`A2`), GET_VERSION
/// (`60`, NTAG only) and READ_SIG (`3C`, Type2Tag+Signature.swift), honouring the static lock bytes (page 2),
/// the dynamic lock bytes, the one-time-programmable CC, and read-only UID pages.
public struct Type2Tag: SimulatedTag {
    /// The chip, which fixes the memory layout (page count, data area size).
    public let tagType: Type2TagType
    public private(set) var memory: [UInt8]
    /// What READ_SIG answers (32 bytes, NXP's originality signature); nil: the chip NAKs it.
    public var signature: [UInt8]?

    /// A fresh, NFC Forum–formatted tag holding `message` (encoded NDEF message bytes)
    /// in an NDEF TLV, laid out by `Type2Memory.image`; `readOnly` sets the CC and static lock bytes.
    public init(_ tagType: Type2TagType, uid: [UInt8], message: [UInt8], readOnly: Bool = false) throws(TagModelError) {
        guard uid.count == 7 else { throw .uidLength(expected: [7], got: uid.count) }
        do {
            memory = try Type2Memory.image(uid: uid, tagType: tagType, message: message, readOnly: readOnly)
        } catch {
            throw .doesNotFit(size: message.count, capacity: Type2TLVArea.capacity(dataAreaSize: tagType.dataAreaSize))
        }
        self.tagType = tagType
    }

    /// A tag holding exactly `image` (every page, UID and lock bytes included), e.g. from a dump.
    public init(_ tagType: Type2TagType, image: [UInt8]) throws(TagModelError) {
        guard image.count == tagType.pageCount * 4 else {
            throw .imageSize(expected: tagType.pageCount * 4, got: image.count)
        }
        self.tagType = tagType
        memory = image
    }

    public var typeName: String { tagType.rawValue }

    public var activation: TagActivation {
        TagActivation(uid: Array(memory[0...2] + memory[4...7]), atqa: [0x00, 0x44], sak: 0x00)
    }

    public mutating func reset() {}

    public mutating func exchange(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
        guard let code = command.first else { throw .tagRemoved }
        switch (code, command.count) {
        case (0x30, 2):
            return try read(page: Int(command[1]))
        case (0x3A, 3) where tagType.version != nil:
            return try fastRead(from: Int(command[1]), to: Int(command[2]))
        case (0xA2, 6):
            try write(page: Int(command[1]), Array(command[2...5]))
            return []
        case (0x60, 1):
            guard let version = tagType.version else { throw .tagRemoved }
            return version
        case (0x3C, 2) where tagType.version != nil:
            return try readSignature()
        default:
            throw .tagRemoved
        }
    }

    static let nak: TagTransportError = .refused(status: [0x00])

    private func pageBytes(_ page: Int) -> ArraySlice<UInt8> {
        if let lockPage = tagType.dynamicLockPage, page == lockPage + 3 {
            return [0, 0, 0, 0]  // PWD always reads as zeros
        }
        return memory[(page * 4)..<(page * 4 + 4)]
    }

    private func read(page: Int) throws(TagTransportError) -> [UInt8] {
        guard page < tagType.pageCount else { throw Self.nak }
        return (0..<4).flatMap { pageBytes((page + $0) % tagType.pageCount) }
    }

    private func fastRead(from start: Int, to end: Int) throws(TagTransportError) -> [UInt8] {
        guard start <= end, end < tagType.pageCount else { throw Self.nak }
        return (start...end).flatMap { pageBytes($0) }
    }

    private mutating func write(page: Int, _ data: [UInt8]) throws(TagTransportError) {
        guard page >= 2, page < tagType.pageCount, !isLocked(page: page) else { throw Self.nak }
        let base = page * 4
        if page == 2 {
            memory[base + 2] |= data[2]
            memory[base + 3] |= data[3]
        } else if page == 3 || page == tagType.dynamicLockPage {
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
        case 16..<tagType.userAreaEnd:
            guard let lockPage = tagType.dynamicLockPage else { return false }
            let bit = (page - 16) / tagType.pagesPerDynamicLockBit
            guard bit < 16 else { return false }
            return memory[lockPage * 4 + bit / 8] & (1 << UInt8(bit % 8)) != 0
        default:
            return false
        }
    }
}

/// Layout facts the model needs beyond what the NDEF module's `Type2TagType` knows.
extension Type2TagType {
    /// The first page after the user memory (which starts at page 4 and may be
    /// longer than the data area the CC announces): the configuration pages follow.
    var userAreaEnd: Int { self == .ultralight ? pageCount : pageCount - 5 }

    /// The page holding the dynamic lock bytes, on chips that have them.
    var dynamicLockPage: Int? { self == .ultralight ? nil : userAreaEnd }

    /// Pages one dynamic lock bit protects.
    var pagesPerDynamicLockBit: Int { self == .ntag213 ? 2 : 16 }

    /// The GET_VERSION answer; nil for the original Ultralight, which does not know the command.
    public var version: [UInt8]? {
        switch self {
        case .ntag213: return [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]
        case .ntag215: return [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]
        case .ntag216: return [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03]
        case .ultralight: return nil
        }
    }
}
