import NDEF
import Testing

/// The Type 2 TLV walker and builder beyond the memory vectors.
@Suite struct Type2Tests {
    @Test func skipsControlProprietaryAndUnknownTLVs() throws {
        let area: [UInt8] = [0x00, 0x01, 0x03, 0xA0, 0x0C, 0x34, 0xFD, 0x01, 0x99, 0x42, 0x00, 0x03, 0x03, 0xD0, 0x00, 0x00, 0xFE]
        let content = try Type2TLVArea.parse(area)
        #expect(content.tlvs.map(\.tag) == [.null, .lockControl, .proprietary, .other(0x42), .ndefMessage])
        #expect(content.ndefMessage == [0xD0, 0x00, 0x00])
        #expect(content.ndefOffset == 13)
    }

    @Test(arguments: [
        ([0xFE, 0x03, 0x00] as [UInt8], Type2Error.Kind.noNDEFTLV, 0),
        ([0x00, 0x00], .noNDEFTLV, 2),
        ([0x01], .truncatedTLV, 0),
        ([0x03, 0xFF, 0x01], .truncatedTLV, 0),
        ([0x01, 0x05, 0x00], .truncatedTLV, 0),
        ([0x03, 0xFF, 0x00, 0x05, 0xD0], .ndefTLVOverflow, 0),
    ])
    func walkErrors(_ area: [UInt8], _ kind: Type2Error.Kind, _ offset: Int) {
        do {
            _ = try Type2TLVArea.parse(area)
            Issue.record("accepted \(area)")
        } catch {
            #expect(error.kind == kind)
            #expect(error.offset == offset)
        }
    }

    /// Every prefix of an area either parses as the whole area does, or says how
    /// much more it needs — and that much is enough to get further.
    @Test func aPrefixSaysHowMuchOfTheAreaItNeeds() throws {
        let area: [UInt8] = [0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0xFF, 0x00, 0x06] + [UInt8](repeating: 0x41, count: 6) + [0xFE]
        let whole = try Type2TLVArea.parse(area)
        for length in 0..<area.count {
            do {
                #expect(try Type2TLVArea.parse(area.prefix(length)) == whole)
            } catch {
                let needed = try #require(error.areaNeeded, "prefix \(length): \(error)")
                #expect(needed > length && needed <= 15)
            }
        }
        let terminated = #expect(throws: Type2Error.self) { try Type2TLVArea.parse([0x00, 0xFE, 0x03]) }
        #expect(terminated?.kind == .noNDEFTLV)
        #expect(terminated?.areaNeeded == nil)  // a Terminator ends the walk: reading more cannot help
    }

    /// A message takes the area less its TLV header: 2 bytes up to 254, 4 bytes (3-byte length) above.
    @Test(arguments: [(48, 46), (144, 142), (496, 492), (257, 254)])
    func capacity(dataAreaSize: Int, capacity: Int) {
        #expect(Type2TLVArea.capacity(dataAreaSize: dataAreaSize) == capacity)
    }

    @Test func buildRefusesAMessageThatDoesNotFit() throws {
        do {
            _ = try Type2TLVArea.build(message: [UInt8](repeating: 0, count: 47), dataAreaSize: 48)
            Issue.record("a 47-byte message fit a 48-byte area")
        } catch {
            #expect(error.kind == .messageTooLarge)
            #expect(error.detail == "message is 47 bytes, the tag holds 46")
        }
        for size in [0, 1, 46, 254, 255, 300, 492] {
            let message = [UInt8](repeating: 0xAB, count: size)
            let area = try Type2TLVArea.build(message: message, dataAreaSize: 496)
            #expect(area.count == 496)
            #expect(try Type2TLVArea.parse(area).ndefMessage == message)
        }
    }

    @Test func capabilityContainerChecks() throws {
        #expect(throws: Type2Error.self) { try Type2CapabilityContainer(bytes: [0xE1, 0x20, 0x06, 0x00]) }
        let cc = try Type2CapabilityContainer(bytes: [0xE1, 0x11, 0x12, 0x0F])
        #expect(cc.dataAreaSize == 144 && cc.readOnly && cc.bytes == [0xE1, 0x11, 0x12, 0x0F])
    }

    @Test func imagesForEveryTagType() throws {
        let message = NDEFMessage(records: [.uri("https://example.com/t")]).encoded()
        for tagType in Type2TagType.allCases {
            let image = try Type2Memory.image(uid: [4, 1, 2, 3, 4, 5, 6], tagType: tagType, message: message)
            #expect(image.count == tagType.pageCount * 4)
            let (cc, content) = try Type2Memory.parse(image: image)
            #expect(cc.dataAreaSize == tagType.dataAreaSize)
            #expect(content.ndefMessage == message)
            #expect(content.ndefOffset == 18)
        }
        #expect(Type2TagType(name: "ultralight") == .ultralight)
        #expect(throws: Type2Error.self) { try Type2Memory.image(uid: [1, 2], tagType: .ntag213, message: message) }
        #expect(throws: Type2Error.self) { try Type2Memory.parse(image: [0x04, 0x01]) }
    }
}
