/// Reads and writes NFC Forum Type 4 tags over ISO-DEP APDUs: SELECT the NDEF
/// application, read the CC file, then READ BINARY / UPDATE BINARY the NDEF
/// file in chunks the CC allows (NLEN set to 0 while the message is written).
public struct Type4Driver: NDEFTagDriver {
    static let applicationID: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]

    public let transport: any TagTransport

    public init(transport: any TagTransport) {
        self.transport = transport
    }

    /// What the CC file says about the NDEF file.
    struct CapabilityContainer {
        var maxRead: Int
        var maxUpdate: Int
        var fileID: [UInt8]
        var fileSize: Int
        var writable: Bool
        var capacity: Int { fileSize - 2 }
    }

    public func read() throws(TagDriverError) -> NDEFTagContent {
        let cc = try selectNDEFFile()
        let length = try readBinary(offset: 0, count: 2, cc: cc)
        let messageLength = Int(length[0]) << 8 | Int(length[1])
        guard messageLength <= cc.capacity else {
            throw .malformed("NLEN \(messageLength) is larger than the \(cc.fileSize)-byte NDEF file")
        }
        let message = try readBinary(offset: 2, count: messageLength, cc: cc)
        return NDEFTagContent(message: messageLength == 0 ? nil : message, capacity: cc.capacity, writable: cc.writable)
    }

    public func write(message: [UInt8]) throws(TagDriverError) {
        let cc = try selectNDEFFile()
        guard cc.writable else { throw .readOnly(tagType: "type4") }
        guard message.count <= cc.capacity else { throw .doesNotFit(size: message.count, capacity: cc.capacity, tagType: "type4") }
        try updateBinary(offset: 0, [0, 0], cc: cc)
        try updateBinary(offset: 2, message, cc: cc)
        try updateBinary(offset: 0, [UInt8(message.count >> 8), UInt8(message.count & 0xFF)], cc: cc)
        let written = try readBinary(offset: 0, count: message.count + 2, cc: cc)
        let expected = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
        if let offset = written.indices.first(where: { written[$0] != expected[$0] }) {
            throw .verifyFailed(offset: offset)
        }
    }

    public func lock() throws(TagDriverError) {
        throw .unsupported("Type 4 tags are made read-only with their vendor's commands, which tagrouter does not send")
    }

    /// Sends an APDU and returns its data, throwing `.refused` with the status word unless it is 90 00.
    private func apdu(_ command: [UInt8]) throws(TagDriverError) -> [UInt8] {
        let answer = try transport.exchange(command)
        guard answer.count >= 2 else { throw .unexpectedAnswer("\(answer.count)-byte APDU response") }
        let status = Array(answer.suffix(2))
        guard status == [0x90, 0x00] else { throw .transport(.refused(status: status)) }
        return Array(answer.dropLast(2))
    }

    private func select(byName name: [UInt8]) throws(TagDriverError) {
        _ = try apdu([0x00, 0xA4, 0x04, 0x00, UInt8(name.count)] + name + [0x00])
    }

    private func select(file: [UInt8]) throws(TagDriverError) {
        _ = try apdu([0x00, 0xA4, 0x00, 0x0C, UInt8(file.count)] + file)
    }

    /// Selects the NDEF application and its CC file, reads the CC, and leaves the NDEF file selected.
    private func selectNDEFFile() throws(TagDriverError) -> CapabilityContainer {
        do {
            try select(byName: Self.applicationID)
            try select(file: [0xE1, 0x03])
        } catch .transport(.refused(let status)) {
            throw .notFormatted("no NDEF application or CC file (status \(status.map { String($0, radix: 16) }.joined(separator: " ")))")
        }
        let bytes = try apdu([0x00, 0xB0, 0x00, 0x00, 0x0F])
        guard bytes.count >= 15, bytes[7] == 0x04, bytes[8] >= 6 else {
            throw .notFormatted("the CC file has no NDEF File Control TLV")
        }
        let cc = CapabilityContainer(
            maxRead: max(1, min(Int(bytes[3]) << 8 | Int(bytes[4]), 0xFF)),
            maxUpdate: max(1, min(Int(bytes[5]) << 8 | Int(bytes[6]), 0xFF)),
            fileID: [bytes[9], bytes[10]],
            fileSize: Int(bytes[11]) << 8 | Int(bytes[12]),
            writable: bytes[14] == 0x00)
        guard cc.fileSize >= 2, bytes[13] == 0x00 else { throw .notFormatted("the NDEF file is not readable") }
        try select(file: cc.fileID)
        return cc
    }

    private func readBinary(offset: Int, count: Int, cc: CapabilityContainer) throws(TagDriverError) -> [UInt8] {
        var data: [UInt8] = []
        while data.count < count {
            let position = offset + data.count
            let chunk = min(count - data.count, cc.maxRead)
            let part = try apdu([0x00, 0xB0, UInt8(position >> 8), UInt8(position & 0xFF), UInt8(chunk)])
            guard !part.isEmpty, part.count <= chunk else {
                throw .unexpectedAnswer("READ BINARY at \(position) returned \(part.count) bytes, asked for \(chunk)")
            }
            data += part
        }
        return data
    }

    private func updateBinary(offset: Int, _ data: [UInt8], cc: CapabilityContainer) throws(TagDriverError) {
        var sent = 0
        while sent < data.count {
            let chunk = Array(data[sent..<min(data.count, sent + cc.maxUpdate)])
            let position = offset + sent
            _ = try apdu([0x00, 0xD6, UInt8(position >> 8), UInt8(position & 0xFF), UInt8(chunk.count)] + chunk)
            sent += chunk.count
        }
    }
}
