import Testing
import TagCore
@testable import SecureTags

/// NXP AN12196's worked examples (all keys zero), and what must fail.
@Suite struct SUNVerifierTests {
    static let zero = [UInt8](repeating: 0, count: 16)
    static let factoryKeys = SUNKeys(id: "factory", metaRead: zero, fileRead: zero)
    let verifier = SUNVerifier(keys: [factoryKeys])

    /// AN12196 §3.4.4: encrypted PICC data, no file data: the MAC covers nothing.
    @Test func encryptedPICCDataExample() throws {
        let result = try #require(verifier.verify("https://choose.url.com/ntag424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"))
        let verified = try result.get()
        #expect(TagUID(bytes: verified.uid).hex == "04de5f1eacc040")
        #expect(verified.counter == 61)
        #expect(verified.fileData == nil)
    }

    /// AN12196 §3.4.5: encrypted PICC data and file data: the MAC covers `enc`'s value through `&cmac=`.
    @Test func encryptedFileDataExample() throws {
        let url = "https://www.my424dna.com/?picc_data=FD91EC264309878BE6345CBE53BADF40&enc=CEE9A53E3E463EF1F459635736738962&cmac=ECC1E7F6C6C73BF6"
        let message = try #require(try SUNMessage.parse(url))
        #expect(message.macInput == Array("CEE9A53E3E463EF1F459635736738962&cmac=".utf8))
        let verified = try #require(verifier.verify(url)).get()
        #expect(TagUID(bytes: verified.uid).hex == "04958caa5c5e80")
        #expect(verified.counter == 8)
        #expect(verified.fileData == Array("xxxxxxxxxxxxxxxx".utf8))
    }

    /// UID and counter mirrored in the clear (counter most significant first), MAC over nothing.
    @Test func plainMirrorExample() throws {
        let verified = try #require(verifier.verify("https://sdm.example/tagpt?uid=041E3C8A2D6B80&ctr=000006&cmac=4B00064004B0B3D3")).get()
        #expect(TagUID(bytes: verified.uid).hex == "041e3c8a2d6b80")
        #expect(verified.counter == 6)
    }

    @Test func alteredURLsAreRefusedWithTheirReason() throws {
        func failure(_ url: String, _ verifier: SUNVerifier? = nil) -> SUNCheck.Failure? {
            guard case .failure(let failure)? = (verifier ?? self.verifier).verify(url) else { return nil }
            return failure
        }
        #expect(failure("https://x/?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337087") == .macMismatch)
        #expect(failure("https://x/?uid=041E3C8A2D6B80&ctr=000007&cmac=4B00064004B0B3D3") == .macMismatch)
        #expect(failure("https://x/?e=EF963FF7828658A599F3041510671E88&c=94EED9") == .malformed)
        #expect(failure("https://x/?e=ZZ963FF7828658A599F3041510671E88&c=94EED9EE65337086") == .malformed)
        #expect(failure("https://x/?c=94EED9EE65337086") == .malformed)
        let otherKeys = SUNVerifier(keys: [SUNKeys(id: "batch-2", metaRead: [UInt8](repeating: 7, count: 16), fileRead: Self.zero)])
        #expect(failure("https://x/?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086", otherKeys) == .unknownKey)
        #expect(verifier.verify("https://example.com/a?b=c") == nil)
    }

    /// A second key set is tried when the first does not decrypt the PICC data.
    @Test func theKeySetThatDecryptsIsUsed() throws {
        let verifier = SUNVerifier(keys: [SUNKeys(id: "other", metaRead: [UInt8](repeating: 9, count: 16), fileRead: Self.zero), Self.factoryKeys])
        let verified = try #require(verifier.verify("https://x/?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086")).get()
        #expect(verified.keyID == "factory")
    }
}
