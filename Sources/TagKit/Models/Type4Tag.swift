/// An NFC Forum Type 4 tag (ISO-DEP) in memory: the NDEF application
/// `D2760000850101` with its CC file (`E103`) and NDEF file (`E104`), answering
/// SELECT, READ BINARY and UPDATE BINARY APDUs with ISO 7816-4 status words.
public struct Type4Tag: SimulatedTag {
    /// The NDEF application's name (mapping version 2.0).
    public static let applicationID: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
    static let ccFileID: [UInt8] = [0xE1, 0x03]
    static let ndefFileID: [UInt8] = [0xE1, 0x04]
    /// Longest READ BINARY answer and UPDATE BINARY command the CC announces.
    static let maxRead = 0x3B, maxUpdate = 0x34

    private enum File { case capabilityContainer, ndef }

    private let uid: [UInt8]
    /// NLEN (2 bytes, big-endian) followed by the NDEF message and padding.
    public private(set) var ndefFile: [UInt8]
    /// Whether the CC grants write access to the NDEF file.
    public let writable: Bool
    private var applicationSelected = false
    private var selectedFile: File?

    /// A tag whose NDEF file (of `fileSize` bytes, NLEN included) holds `message`.
    public init(uid: [UInt8], message: [UInt8], fileSize: Int = 2048, writable: Bool = true) throws(TagModelError) {
        guard uid.count == 4 || uid.count == 7 else { throw .uidLength(expected: [4, 7], got: uid.count) }
        guard message.count + 2 <= fileSize, fileSize <= 0x7FFF else {
            throw .doesNotFit(size: message.count + 2, capacity: min(fileSize, 0x7FFF))
        }
        self.uid = uid
        self.writable = writable
        ndefFile = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
            + [UInt8](repeating: 0, count: fileSize - message.count - 2)
    }

    public var typeName: String { "type4" }

    public var activation: TagActivation {
        TagActivation(uid: uid, atqa: [0x03, 0x44], sak: 0x20, ats: [0x06, 0x75, 0x77, 0x81, 0x02, 0x80])
    }

    /// The CC file: length, mapping 2.0, MLe, MLc, and the NDEF File Control TLV.
    public var capabilityContainer: [UInt8] {
        [0x00, 0x0F, 0x20, 0x00, UInt8(Self.maxRead), 0x00, UInt8(Self.maxUpdate),
         0x04, 0x06] + Self.ndefFileID
            + [UInt8(ndefFile.count >> 8), UInt8(ndefFile.count & 0xFF), 0x00, writable ? 0x00 : 0xFF]
    }

    public var memory: [UInt8] { capabilityContainer + ndefFile }

    /// Whether the NDEF file is the selected one (the next READ BINARY reads it).
    public var isNDEFFileSelected: Bool { selectedFile == .ndef }

    /// Overwrites the NDEF file's bytes from `offset` on, as a tag's own firmware does
    /// (NTAG 424 DNA mirroring SUN data); false when they would not fit.
    @discardableResult
    public mutating func overwriteNDEFFile(at offset: Int, with bytes: [UInt8]) -> Bool {
        guard offset >= 0, offset + bytes.count <= ndefFile.count else { return false }
        ndefFile.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        return true
    }

    public mutating func reset() {
        applicationSelected = false
        selectedFile = nil
    }

    public mutating func exchange(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
        guard command.count >= 4 else { return Status.wrongLength }
        guard command[0] == 0x00 else { return Status.claNotSupported }
        let parameter = Int(command[2]) << 8 | Int(command[3])
        let body = Array(command.dropFirst(4))
        switch command[1] {
        case 0xA4: return select(p1: command[2], body: body)
        case 0xB0: return readBinary(offset: parameter, body: body)
        case 0xD6: return updateBinary(offset: parameter, body: body)
        default: return Status.insNotSupported
        }
    }

    /// ISO 7816-4 status words this tag answers with.
    private enum Status {
        static let ok: [UInt8] = [0x90, 0x00]
        static let wrongLength: [UInt8] = [0x67, 0x00]
        static let claNotSupported: [UInt8] = [0x6E, 0x00]
        static let insNotSupported: [UInt8] = [0x6D, 0x00]
        static let notFound: [UInt8] = [0x6A, 0x82]
        static let noCurrentFile: [UInt8] = [0x69, 0x86]
        static let securityNotSatisfied: [UInt8] = [0x69, 0x82]
        static let wrongOffset: [UInt8] = [0x6B, 0x00]
    }

    /// Splits `Lc data [Le]` into the data; nil when Lc disagrees with the length.
    private func commandData(_ body: [UInt8]) -> [UInt8]? {
        guard let lc = body.first.map(Int.init), body.count == lc + 1 || body.count == lc + 2 else { return nil }
        return Array(body[1..<(1 + lc)])
    }

    private mutating func select(p1: UInt8, body: [UInt8]) -> [UInt8] {
        guard let name = commandData(body) else { return Status.wrongLength }
        switch p1 {
        case 0x04:
            guard name == Self.applicationID else { return Status.notFound }
            applicationSelected = true
            selectedFile = nil
            return Status.ok
        case 0x00 where applicationSelected && name == Self.ccFileID:
            selectedFile = .capabilityContainer
            return Status.ok
        case 0x00 where applicationSelected && name == Self.ndefFileID:
            selectedFile = .ndef
            return Status.ok
        default:
            return Status.notFound
        }
    }

    private func readBinary(offset: Int, body: [UInt8]) -> [UInt8] {
        guard let file = selectedFile else { return Status.noCurrentFile }
        guard body.count <= 1 else { return Status.wrongLength }
        let content = file == .ndef ? ndefFile : capabilityContainer
        guard offset <= content.count else { return Status.wrongOffset }
        let length = body.first.map { $0 == 0 ? 256 : Int($0) } ?? 256
        return Array(content[offset..<min(content.count, offset + length)]) + Status.ok
    }

    private mutating func updateBinary(offset: Int, body: [UInt8]) -> [UInt8] {
        guard let file = selectedFile else { return Status.noCurrentFile }
        guard file == .ndef, writable else { return Status.securityNotSatisfied }
        guard let data = commandData(body) else { return Status.wrongLength }
        guard offset + data.count <= ndefFile.count else { return Status.wrongOffset }
        ndefFile.replaceSubrange(offset..<(offset + data.count), with: data)
        return Status.ok
    }
}
