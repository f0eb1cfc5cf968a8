import Testing
import TagCore
import TagCrypto
import SecureTags

/// NXP's originality signature, checked with libcrypto on secp128r1, against a real tag's.
@Suite struct OriginalitySignatureTests {
    /// A real NTAG 21x's UID and READ_SIG answer, published as the test vector of
    /// github.com/aramix/nxp-originality-verifier (test/nxp_originality_verifier_test.dart),
    /// which verifies it against NXP's NTAG 21x key 04494e1a…bc61.
    static let uid = CryptoTests.bytes("04ab87f2ca1190")
    static let signature = CryptoTests.bytes("67b1750bcceb1174f9a33bf20e0226551a6366939b31f949848c3c087350fa90")

    @Test func thePublishedSignatureIsGenuine() throws {
        #expect(try OriginalitySignature.verify(uid: Self.uid, signature: Self.signature))
        // Only under the NTAG 21x key: the Ultralight EV1 key alone refuses it.
        #expect(try OriginalitySignature.verify(uid: Self.uid, signature: Self.signature, keys: [OriginalitySignature.nxpPublicKeys[0]]))
        #expect(try !OriginalitySignature.verify(uid: Self.uid, signature: Self.signature, keys: [OriginalitySignature.nxpPublicKeys[1]]))
        #expect(OriginalityCheck.verdict(uid: TagUID(bytes: Self.uid), signature: Self.signature) == .genuine)
    }

    @Test func anyFlippedBitIsNotGenuine() throws {
        for bit in 0..<(Self.signature.count * 8) {
            var flipped = Self.signature
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(try !OriginalitySignature.verify(uid: Self.uid, signature: flipped), "signature bit \(bit)")
        }
        for bit in 0..<(Self.uid.count * 8) {
            var other = Self.uid
            other[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(try !OriginalitySignature.verify(uid: other, signature: Self.signature), "UID bit \(bit)")
        }
    }

    @Test func malformedSignaturesAreNotGenuineNorErrors() throws {
        #expect(try !OriginalitySignature.verify(uid: Self.uid, signature: [UInt8](repeating: 0, count: 32)))
        #expect(try !OriginalitySignature.verify(uid: Self.uid, signature: [UInt8](repeating: 0xFF, count: 32)))
        #expect(try !OriginalitySignature.verify(uid: Self.uid, signature: Array(Self.signature.prefix(31))))
        #expect(try !OriginalitySignature.verify(uid: Self.uid, signature: Self.signature + [0]))
        #expect(try !OriginalitySignature.verify(uid: [], signature: Self.signature))
        #expect(OriginalityCheck.verdict(uid: TagUID(bytes: Self.uid), signature: nil) == .unknown)
    }

    /// An event read back from JSON: its `signature` is checked here, a `genuine` it claims is not believed.
    @Test func eventsFromJSONAreCheckedNotBelieved() throws {
        let signed = try TagEvent(jsonText: #"{"event":"tag.arrived","reader":"r","tag":{"uid":"04ab87f2ca1190","type":"ntag215","signature":"67b1750bcceb1174f9a33bf20e0226551a6366939b31f949848c3c087350fa90","genuine":false}}"#)
        #expect(signed.tag?.genuine == nil)
        let checked = OriginalityCheck.checked(signed)
        #expect(checked.tag?.genuine == .genuine)
        #expect(checked.jsonText.contains(#""signature":"67b1750bcceb1174f9a33bf20e0226551a6366939b31f949848c3c087350fa90","genuine":true"#))
        let claimed = try TagEvent(jsonText: #"{"event":"tag.arrived","reader":"r","tag":{"uid":"04ab87f2ca1190","type":"ntag215","genuine":true}}"#)
        #expect(OriginalityCheck.checked(claimed).tag?.genuine == nil)
        let copied = try TagEvent(jsonText: #"{"event":"tag.arrived","reader":"r","tag":{"uid":"04ab87f2ca1191","type":"ntag215","signature":"67b1750bcceb1174f9a33bf20e0226551a6366939b31f949848c3c087350fa90"}}"#)
        #expect(OriginalityCheck.checked(copied).tag?.genuine == .notGenuine)
        #expect(OriginalityCheck.checked(copied).jsonText.contains(#""genuine":false"#))
    }
}
