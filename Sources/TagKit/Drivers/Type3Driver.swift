/// Reads and writes NFC Forum Type 3 (FeliCa) tags: the Attribute Information
/// Block (block 0, checksum checked) gives the message length Ln and the blocks
/// per command; Check reads the NDEF blocks, Write Without Encryption writes them
/// with WriteF set until the new Ln is in place. Frames carry FeliCa's length byte.
public struct Type3Driver: NDEFTagDriver {
    public let transport: any TagTransport
    /// The tag's IDm, which every command names.
    public let idm: [UInt8]

    public init(transport: any TagTransport, idm: [UInt8]) {
        self.transport = transport
        self.idm = idm
    }

    /// Block 0, decoded.
    struct Attributes {
        var maxCheck: Int
        var maxWrite: Int
        var ndefBlocks: Int
        var writing: Bool
        var writable: Bool
        var length: Int
        var capacity: Int { ndefBlocks * 16 }
    }

    public func read() throws(TagDriverError) -> NDEFTagContent {
        let attributes = try readAttributes()
        guard !attributes.writing else { throw .malformed("a write to this Type 3 tag was interrupted (WriteF is set)") }
        guard attributes.length <= attributes.capacity else {
            throw .malformed("Ln \(attributes.length) is larger than the \(attributes.capacity)-byte NDEF area")
        }
        let data = try check(blocks: Array(1...max(1, (attributes.length + 15) / 16)), attributes: attributes)
        return NDEFTagContent(message: attributes.length == 0 ? nil : Array(data.prefix(attributes.length)),
                              capacity: attributes.capacity, writable: attributes.writable)
    }

    public func write(message: [UInt8]) throws(TagDriverError) {
        let attributes = try readAttributes()
        guard attributes.writable else { throw .readOnly(tagType: "type3") }
        guard message.count <= attributes.capacity else {
            throw .doesNotFit(size: message.count, capacity: attributes.capacity, tagType: "type3")
        }
        try writeAttributes(attributes, length: attributes.length, writing: true, writable: true)
        let padded = message + [UInt8](repeating: 0, count: (16 - message.count % 16) % 16)
        for block in 0..<(padded.count / 16) {
            try writeBlock(1 + block, Array(padded[(block * 16)..<(block * 16 + 16)]))
        }
        try writeAttributes(attributes, length: message.count, writing: false, writable: true)
        let written = try read()
        guard written.message ?? [] == message else {
            let readBack = written.message ?? []
            throw .verifyFailed(offset: 16 + (readBack.indices.first { $0 >= message.count || readBack[$0] != message[$0] } ?? readBack.count))
        }
    }

    public func lock() throws(TagDriverError) {
        let attributes = try readAttributes()
        try writeAttributes(attributes, length: attributes.length, writing: false, writable: false)
        guard try !readAttributes().writable else { throw .verifyFailed(offset: 10) }
    }

    private func readAttributes() throws(TagDriverError) -> Attributes {
        let block = try check(blocks: [0], attributes: nil)
        let sum = block.prefix(14).reduce(0) { $0 + Int($1) }
        guard block[0] >> 4 == 1, sum == Int(block[14]) << 8 | Int(block[15]) else {
            throw .notFormatted("the Attribute Information Block has version \(block[0] >> 4).\(block[0] & 0x0F) or a wrong checksum")
        }
        return Attributes(maxCheck: max(1, Int(block[1])), maxWrite: max(1, Int(block[2])),
                          ndefBlocks: Int(block[3]) << 8 | Int(block[4]), writing: block[9] == 0x0F,
                          writable: block[10] == 0x01, length: Int(block[11]) << 16 | Int(block[12]) << 8 | Int(block[13]))
    }

    private func writeAttributes(_ attributes: Attributes, length: Int, writing: Bool, writable: Bool) throws(TagDriverError) {
        var block = try check(blocks: [0], attributes: nil)
        block[9] = writing ? 0x0F : 0x00
        block[10] = writable ? 0x01 : 0x00
        block[11...13] = [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        let sum = block.prefix(14).reduce(0) { $0 + Int($1) }
        block[14...15] = [UInt8(sum >> 8 & 0xFF), UInt8(sum & 0xFF)]
        try writeBlock(0, block)
    }

    /// A FeliCa frame: length, command, IDm, parameters.
    private func command(_ code: UInt8, _ parameters: [UInt8]) throws(TagDriverError) -> [UInt8] {
        let answer = try transport.exchange([UInt8(10 + parameters.count), code] + idm + parameters)
        guard answer.count >= 12, Int(answer[0]) == answer.count, answer[1] == code + 1, Array(answer[2..<10]) == idm else {
            throw .unexpectedAnswer("FeliCa answer to command \(code) is malformed")
        }
        guard answer[10] == 0, answer[11] == 0 else { throw .transport(.refused(status: [answer[10], answer[11]])) }
        return Array(answer.dropFirst(12))
    }

    private static func blockList(_ blocks: [Int]) -> [UInt8] {
        blocks.flatMap { $0 < 0x100 ? [0x80, UInt8($0)] : [0x00, UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    /// Reads `blocks` with as few Checks as the tag allows (Nbr from block 0, 1 until it is known).
    private func check(blocks: [Int], attributes: Attributes?) throws(TagDriverError) -> [UInt8] {
        let perCommand = attributes?.maxCheck ?? 1
        var data: [UInt8] = []
        for start in stride(from: 0, to: blocks.count, by: perCommand) {
            let chunk = Array(blocks[start..<min(blocks.count, start + perCommand)])
            let answer = try command(0x06, [0x01, 0x0B, 0x00, UInt8(chunk.count)] + Self.blockList(chunk))
            guard answer.count == 1 + chunk.count * 16 else {
                throw .unexpectedAnswer("Check returned \(answer.count) bytes for \(chunk.count) blocks")
            }
            data += answer.dropFirst()
        }
        return data
    }

    private func writeBlock(_ block: Int, _ data: [UInt8]) throws(TagDriverError) {
        _ = try command(0x08, [0x01, 0x09, 0x00, 0x01] + Self.blockList([block]) + data)
    }
}
