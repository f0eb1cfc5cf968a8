import Testing
import TagKit

/// Type names from activation data, as real tags report it.
@Suite("Tag identity")
struct TagIdentityTests {
    @Test("names tags from ATQA, SAK, GET_VERSION and ATS", arguments: [
        ([0x00, 0x44], 0x00, [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03], nil, "ntag213", 2),
        ([0x00, 0x44], 0x00, [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03], nil, "ntag215", 2),
        ([0x00, 0x44], 0x00, [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03], nil, "ntag216", 2),
        ([0x00, 0x44], 0x00, [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03], nil, "mifare-ultralight-ev1", 2),
        ([0x00, 0x44], 0x00, nil, nil, "mifare-ultralight", 2),
        ([0x00, 0x04], 0x08, nil, nil, "mifare-classic-1k", nil),
        ([0x00, 0x02], 0x18, nil, nil, "mifare-classic-4k", nil),
        ([0x03, 0x44], 0x20, nil, [0x06, 0x75, 0x77, 0x81, 0x02, 0x80], "type4", 4),
        ([0x00, 0x04], 0x28, nil, nil, "type4", 4),
    ] as [([UInt8], UInt8, [UInt8]?, [UInt8]?, String, Int?)])
    func identify(atqa: [UInt8], sak: UInt8, version: [UInt8]?, ats: [UInt8]?, type: String, forum: Int?) {
        let identity = TagIdentity.identify(atqa: atqa, sak: sak, getVersion: version, ats: ats)
        #expect(identity.type == type && identity.nfcForumType == forum)
    }

    @Test("every model identifies as what it says it is")
    func models() throws {
        let uid: [UInt8] = [0x04, 1, 2, 3, 4, 5, 6]
        let tags: [any SimulatedTag] = [
            try Type2Tag(.ntag215, uid: uid, message: []),
            try Type4Tag(uid: uid, message: []),
            try MifareClassicTag(uid: [1, 2, 3, 4], message: []),
        ]
        for var tag in tags {
            let activation = tag.activation
            let version = try? tag.exchange([0x60])
            let identity = TagIdentity.identify(atqa: activation.atqa, sak: activation.sak,
                                                getVersion: activation.sak == 0 ? version : nil, ats: activation.ats)
            #expect(identity.type == tag.typeName)
        }
    }
}
