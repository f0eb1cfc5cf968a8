import NDEF
import OrderedJSON
import Testing

/// The typed record constructors and decoders beyond what the vectors cover.
@Suite struct RecordTypeTests {
    @Test(arguments: [
        ("https://www.example.com", 0x02, "example.com"),
        ("http://example.com", 0x03, "example.com"),
        ("urn:epc:id:sgtin:1", 0x1E, "sgtin:1"),
        ("urn:epc:x", 0x22, "x"),
        ("urn:nfc:wkt:U", 0x23, "wkt:U"),
        ("ftp://anonymous:anonymous@host", 0x07, "host"),
        ("ftp://ftp.host", 0x08, "host"),
        ("geo:1,2", 0x00, "geo:1,2"),
        ("HTTPS://EXAMPLE.COM", 0x00, "HTTPS://EXAMPLE.COM"),
    ])
    func uriPicksTheLongestPrefix(_ uri: String, _ code: Int, _ rest: String) throws {
        let record = NDEFRecord.uri(uri)
        #expect(record.payload == [UInt8(code)] + Array(rest.utf8))
        #expect(record.content == .uri(uri))
    }

    @Test func everyPrefixCodeExpands() throws {
        for code in 0...0x23 {
            let record = NDEFRecord(tnf: .wellKnown, type: [0x55], payload: [UInt8(code), 0x78])
            let uri = try #require(record.content.uriValue)
            #expect(uri.hasSuffix("x"))
            #expect(NDEFRecord.uri(uri).payload.first == UInt8(code) || code == 0)
        }
        #expect(NDEFRecord(tnf: .wellKnown, type: [0x55], payload: [0x24]).content == .invalid(
            NDEFError(.uriBadPrefixCode, at: 0, "URI identifier code 0x24 is not defined")))
    }

    @Test func textInUTF16BothOrdersAndWithoutBOM() throws {
        let big = NDEFText(text: "Grüße 🌍", language: "de", encoding: .utf16)
        #expect(try NDEFText(payload: big.payload) == big)
        var little: [UInt8] = [0x82] + Array("de".utf8) + [0xFF, 0xFE]
        for unit in "Grüße 🌍".utf16 { little += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(try NDEFText(payload: little).text == "Grüße 🌍")
        #expect(throws: NDEFError.self) { try NDEFText(payload: [0x82, 0x65, 0x6E, 0x00]) }  // odd length
        #expect(throws: NDEFError.self) { try NDEFText(payload: [0x02, 0x65, 0x6E, 0xFF]) }  // bad UTF-8
        #expect(throws: NDEFError.self) { try NDEFText(payload: [0x00, 0x65]) }  // no language
    }

    @Test func smartPosterRoundTrip() throws {
        let poster = SmartPoster(uri: "https://example.com/menu", titles: [.init(language: "en", text: "Menu"), .init(language: "de", text: "Karte")],
                                 action: .save, type: "text/html", size: 70_000)
        let record = NDEFRecord.smartPoster(poster)
        #expect(record.content == .smartPoster(poster))
        let message = NDEFMessage(records: [record, .text("other")])
        #expect(message.firstURI == "https://example.com/menu")
        #expect(message.firstText == "other")
    }

    @Test(arguments: [
        ([NDEFRecord.text("title")], NDEFError.Kind.smartposterMissingURI),
        ([.uri("a:"), .uri("b:")], .smartposterMultipleURI),
    ])
    func smartPosterNeedsExactlyOneURI(inside: [NDEFRecord], kind: NDEFError.Kind) throws {
        let payload = NDEFMessage(records: inside).encoded()
        let bytes = NDEFMessage(records: [NDEFRecord(tnf: .wellKnown, type: Array("Sp".utf8), payload: payload)]).encoded()
        #expect(throws: NDEFError.self) { try NDEFMessage(bytes: bytes) }
        #expect(NDEFMessage.decodeLenient(bytes).error?.kind == kind)
    }

    @Test func wifiRoundTrip() {
        let credential = WiFiCredential(ssid: "Home", authentication: .wpa2Personal, encryption: .aes, key: "secret pass")
        #expect(NDEFRecord.wifi(credential).content == .wifi(credential))
        #expect(WiFiCredential.Authentication(rawValue: 0x0022).name == "0x0022")
        // A WSC payload cut inside an attribute is shown as a plain media record.
        let broken = NDEFRecord.mime("application/vnd.wfa.wsc", credential.payload.dropLast(3))
        #expect(broken.content == .mime(type: "application/vnd.wfa.wsc", text: nil))
    }

    @Test func bluetoothNameFallsBackToShortenedName() {
        let payload: [UInt8] = [0x0F, 0x00, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x04, 0x08, 0x53, 0x70, 0x6B, 0x02, 0x0A, 0x00]
        #expect(NDEFRecord.mime("application/vnd.bluetooth.ep.oob", payload).content
                == .bluetooth(BluetoothOOB(address: "01:02:03:04:05:06", name: "Spk")))
        #expect(BluetoothOOB(payload: [0x08, 0x00, 1, 2, 3]) == nil)
    }

    @Test func mimeTextFollowsTheMediaTypeEssence() {
        #expect(NDEFRecord.mime(" Text/Plain ; charset=utf-8", "hi".utf8).content == .mime(type: " Text/Plain ; charset=utf-8", text: "hi"))
        #expect(NDEFRecord.json("{\"a\":1}").content == .mime(type: "application/json", text: "{\"a\":1}"))
        #expect(NDEFRecord.mime("image/png", "hi".utf8).content == .mime(type: "image/png", text: nil))
    }

    @Test func externalAndUnknownRecords() {
        #expect(NDEFRecord.androidApp("com.example").content == .androidApp(package: "com.example"))
        #expect(NDEFRecord.external("Android.COM:PKG", "x".utf8).content == .androidApp(package: "x"))
        #expect(NDEFRecord.external("a.org:b", [1]).content == .external(type: "a.org:b"))
        let json = NDEFRecord(tnf: .unknown, payload: Array(#"{"b":[true,null,-1.5e2,"\u00e9\ud83c\udf0d"],"a":1}"#.utf8))
        #expect(json.content == .unknown(json: ["b": [true, nil, .double(-150), "é🌍"], "a": 1]))
        #expect(json.json["json"]?.serialized() == #"{"b":[true,null,-150.0,"é🌍"],"a":1}"#)
        for notJSON in ["", "{", "[1,]", "01", "\"\u{1}\"", "{\"a\" 1}", "1 2", String(repeating: "[", count: JSONValue.maximumDepth + 1) + String(repeating: "]", count: JSONValue.maximumDepth + 1)] {
            #expect(NDEFRecord(tnf: .unknown, payload: Array(notJSON.utf8)).content == .unknown(json: nil), "\(notJSON)")
        }
    }

    @Test func chunkedEncodingLayout() throws {
        let record = NDEFRecord(tnf: .mediaType, type: Array("a/b".utf8), id: [0x69], payload: Array(0..<10))
        let bytes = NDEFMessage(records: [record]).encoded(chunkSize: 4)
        // initial chunk: MB CF SR IL TNF 2; two continuations TNF 6, the last with ME.
        #expect(Hex.string(bytes) == "ba030401612f626900010203" + "36000404050607" + "5600020809")
        #expect(try NDEFMessage(bytes: bytes).records == [record])
    }

    /// 20 000 one-byte chunks join into one record (the joined payload grows in place).
    @Test func manySmallChunksJoin() throws {
        let record = NDEFRecord(tnf: .unknown, payload: (0..<20_000).map { UInt8(truncatingIfNeeded: $0) })
        let bytes = NDEFMessage(records: [record]).encoded(chunkSize: 1)
        #expect(bytes.count == 20_000 * 4)
        #expect(try NDEFMessage(bytes: bytes).records == [record])
    }

    @Test func longRecordsUseFourByteLengths() throws {
        let record = NDEFRecord.mime("application/octet-stream", [UInt8](repeating: 7, count: 256))
        let bytes = NDEFMessage(records: [record]).encoded()
        #expect(Array(bytes[0...5]) == [0xC2, 24, 0, 0, 1, 0])
        #expect(Array(NDEFMessage(records: [.mime("a/b", [1])]).encoded()[0...2]) == [0xD2, 3, 1])
    }
}
