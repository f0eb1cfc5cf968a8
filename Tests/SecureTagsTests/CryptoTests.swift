import Testing
import TagCore
import TagCrypto

/// libcrypto's AES and CMAC, as wrapped, against the published vectors.
@Suite struct CryptoTests {
    static func bytes(_ hex: String) -> [UInt8] { TagUID(hex)!.bytes }

    /// RFC 4493, section 4: the AES-CMAC examples.
    @Test(arguments: [
        ("", "bb1d6929e95937287fa37d129b756746"),
        ("6bc1bee22e409f96e93d7e117393172a", "070a16b46b4d4144f79bdd9dd04a287c"),
        ("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411", "dfa66747de9ae63030ca32611497c827"),
    ])
    func cmacMatchesRFC4493(message: String, expected: String) throws {
        let key = Self.bytes("2b7e151628aed2a6abf7158809cf4f3c")
        #expect(try CMAC.aes128(key: key, message.isEmpty ? [] : Self.bytes(message)) == Self.bytes(expected))
    }

    /// FIPS-197 appendix C.1 (AES-128): one block, which CBC from a zero IV leaves as ECB.
    @Test func aesMatchesFIPS197() throws {
        let cipher = try #require(AES128(key: Self.bytes("000102030405060708090a0b0c0d0e0f")))
        let plain = Self.bytes("00112233445566778899aabbccddeeff")
        #expect(try cipher.encrypt(plain) == Self.bytes("69c4e0d86a7b0430d8cdb78070b4c55a"))
        #expect(try cipher.decrypt(Self.bytes("69c4e0d86a7b0430d8cdb78070b4c55a")) == plain)
    }

    @Test func wrongSizesAreErrorsNotTraps() {
        #expect(AES128(key: [1, 2, 3]) == nil)
        #expect(throws: CryptoError.notWholeBlocks(3)) { try AES128(key: [UInt8](repeating: 0, count: 16))!.decrypt([1, 2, 3]) }
        #expect(throws: CryptoError.badKey(15)) { try CMAC.aes128(key: [UInt8](repeating: 0, count: 15), []) }
        #expect(ConstantTime.equal([1, 2], [1, 2]) && !ConstantTime.equal([1, 2], [1, 3]) && !ConstantTime.equal([1], [1, 2]))
    }
}
