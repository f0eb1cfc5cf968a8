import Testing
import TagCore
import TagCrypto
import SecureTags

/// AN10922 AES-128 key diversification, and per-tag SUN keys made with it.
@Suite struct KeyDiversificationTests {
    static func bytes(_ hex: String) -> [UInt8] { TagUID(hex)!.bytes }
    static let master = bytes("00112233445566778899AABBCCDDEEFF")

    /// AN10922 §2.2.1, table 2: UID 04782E21801D80, AID 3042F5, system identifier "NXP Abu".
    @Test func matchesAN10922sExample() throws {
        let key = try KeyDiversification.aes128(master: Self.master, input: Self.bytes("04782E21801D80" + "3042F5" + "4E585020416275"))
        #expect(key == Self.bytes("A8DD63A3B89D54B37CA802473FDA9175"))
        let diversification = SUNKeyDiversification(applicationID: Self.bytes("3042F5"), systemIdentifier: Self.bytes("4E585020416275"))
        #expect(try diversification.key(master: Self.master, uid: Self.bytes("04782E21801D80")) == key)
    }

    /// An input shorter than a block is still padded to two (not CMAC's one): computed independently with
    /// `openssl enc -aes-128-cbc -nopad` over `01 ‖ UID ‖ 80 00…` and AN10922's published K2 (F793EEB9…0D25).
    @Test func padsAShortInputToTwoBlocksAsTheNoteDoes() throws {
        let key = try KeyDiversification.aes128(master: Self.master, input: Self.bytes("04782E21801D80"))
        #expect(key == Self.bytes("4FD3364753B8142980E8203C75AD83BE"))
        #expect(key != (try CMAC.aes128(key: Self.master, Self.bytes("0104782E21801D80"))))
    }

    @Test func inputsOutsideOneTo31BytesAreErrors() throws {
        #expect(throws: DiversificationError.inputLength(0)) { try KeyDiversification.aes128(master: Self.master, input: []) }
        #expect(throws: DiversificationError.inputLength(32)) { try KeyDiversification.aes128(master: Self.master, input: [UInt8](repeating: 1, count: 32)) }
        #expect(throws: DiversificationError.crypto(.badKey(3))) { try KeyDiversification.aes128(master: [1, 2, 3], input: [1]) }
        #expect(try KeyDiversification.aes128(master: Self.master, input: [UInt8](repeating: 1, count: 31)).count == 16)
    }
}

/// The tag side of SUN: what `SUNMirror` mirrors is what a real tag mirrors, and it verifies.
@Suite struct SUNMirrorTests {
    static let zero = [UInt8](repeating: 0, count: 16)

    /// AN12196 §3.4.4 again, made instead of checked: the same UID, counter 61 and padding give the same URL parts.
    @Test func mirrorsAN12196sExample() throws {
        let mirror = try SUNMirror(keys: SUNKeys(id: "factory", metaRead: Self.zero, fileRead: Self.zero), uid: KeyDiversificationTests.bytes("04DE5F1EACC040"))
        let sun = try mirror.mirror(counter: 61, padding: KeyDiversificationTests.bytes("DA5CF60941"))
        #expect(String(decoding: sun.piccData, as: UTF8.self) == "EF963FF7828658A599F3041510671E88")
        #expect(String(decoding: sun.mac, as: UTF8.self) == "94EED9EE65337086")
    }

    /// A tag with a diversified file key verifies only where the verifier diversifies the same way.
    @Test func aDiversifiedTagVerifiesWithTheMasterKeyAndTheSameInput() throws {
        let uid = KeyDiversificationTests.bytes("04A1B2C3D4E5F6")
        let meta = [UInt8](repeating: 0x11, count: 16)
        let diversified = SUNKeys(id: "batch", metaRead: meta, fileRead: KeyDiversificationTests.master,
                                  diversification: SUNKeyDiversification(systemIdentifier: Array("door".utf8)))
        let sun = try SUNMirror(keys: diversified, uid: uid).mirror(counter: 7, padding: [1, 2, 3, 4, 5])
        let url = "https://x/?picc_data=\(String(decoding: sun.piccData, as: UTF8.self))&cmac=\(String(decoding: sun.mac, as: UTF8.self))"
        let verified = try #require(SUNVerifier(keys: [diversified]).verify(url)).get()
        #expect(verified.uid == uid && verified.counter == 7)
        var undiversified = diversified
        undiversified.diversification = nil
        #expect(SUNVerifier(keys: [undiversified]).verify(url) == .failure(.macMismatch))
        var otherInput = diversified
        otherInput.diversification = SUNKeyDiversification(systemIdentifier: Array("gate".utf8))
        #expect(SUNVerifier(keys: [otherInput]).verify(url) == .failure(.macMismatch))
    }
}
