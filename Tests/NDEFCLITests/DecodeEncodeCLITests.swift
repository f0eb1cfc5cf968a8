import Foundation
import NDEF
import TestSupport
import Testing

/// `tagrouter decode` and `encode`, run as a user runs them.
@Suite struct DecodeEncodeCLITests {
    /// The vectors from the NDEF tests, read from the source tree.
    static func vectors(_ file: String) throws -> [[String: Any]] {
        let url = BuiltProducts.packageRoot.appendingPathComponent("Tests/NDEFTests/Vectors/\(file)")
        return try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]] ?? []
    }

    static func json(_ text: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
    }

    @Test func decodesHexToTheLibraryJSON() async throws {
        let hex = "d10222537091010e55026e66632d666f72756d2e6f726751010c5402656e4e464320466f72756d"
        let run = try await Tool.run(["decode", hex])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let message = try NDEFMessage(bytes: try #require(Hex.bytes(hex)))
        #expect(run.stdout == message.json.serialized() + "\n")
        #expect(run.stdout.hasPrefix(#"{"records":[{"tnf":1,"type":"Sp","id":"","payload_hex":"#))
    }

    @Test func badDataExitsSixtyFiveWithOneLine() async throws {
        let run = try await Tool.run(["decode", "d1010c55246578616d706c652e636f6d"])
        #expect(run.status == 65)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "error: uri-bad-prefix-code at byte 4: record 1: URI identifier code 0x24 is not defined\n")
        let notHex = try await Tool.run(["decode", "xyz"])
        #expect(notHex.status == 65)
        #expect(notHex.stderr.hasPrefix("error: bad-hex at byte 0"))
    }

    /// Every vector through `--lines` in one run: valid lines match the vector's
    /// records, invalid ones give an error object with the vector's kind, and the
    /// run goes on.
    @Test func linesDecodesEveryVector() async throws {
        var vectors: [[String: Any]] = []
        for file in ["uri.json", "text.json", "smartposter.json", "mime.json", "wifi.json", "handover.json", "external.json",
                     "absolute-uri.json", "empty-unknown-unchanged.json", "chunked.json", "multi-record.json",
                     "custom-json-unknown.json", "malformed.json"] {
            vectors += try Self.vectors(file).filter { !($0["message_hex"] as? String ?? "").isEmpty }
        }
        let input = vectors.map { $0["message_hex"] as? String ?? "" }.joined(separator: "\n") + "\nnot hex\n"
        let run = try await Tool.run(["decode", "--lines"], stdin: Data(input.utf8))
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == vectors.count + 1)
        for (number, (vector, line)) in zip(vectors, lines).enumerated() {
            let output = try Self.json(line)
            if vector["valid"] as? Bool == true {
                let expected = vector["records"] as? [[String: Any]] ?? []
                let records = output["records"] as? [[String: Any]] ?? []
                #expect(records.count == expected.count, "\(vector["name"] ?? "")")
                for (ours, theirs) in zip(records, expected) {
                    for (key, value) in theirs {
                        #expect((ours[key] as? NSObject) == (value as? NSObject), "\(vector["name"] ?? "") \(key)")
                    }
                }
            } else {
                let error = output["error"] as? [String: Any]
                #expect(output["line"] as? Int == number + 1)
                #expect(error?["kind"] as? String == vector["error"] as? String, "\(vector["name"] ?? "")")
            }
        }
        let last = try Self.json(try #require(lines.last))
        #expect((last["error"] as? [String: Any])?["kind"] as? String == "bad-hex")
    }

    /// `--lines` reads stdin in 64 KiB blocks: lines cut by a block boundary, a line longer
    /// than a block, CRLF endings, blank lines (counted) and a last line without a newline.
    @Test func linesSurviveBlockBoundaries() async throws {
        let small = NDEFMessage(records: [.uri("https://example.com/a"), .text("Hi")])
        let long = NDEFMessage(records: [.mime("application/octet-stream", (0..<40_000).map { UInt8(truncatingIfNeeded: $0) })])
        var lines: [String] = []
        var expected: [String] = []
        for number in 1...3000 {
            switch number % 1000 {
            case 0: lines.append("  0x" + Hex.string(long.encoded()) + " \r"); expected.append(long.json.serialized())
            case 7: lines.append(""); continue
            case 8: lines.append("zz"); expected.append(#"{"line":\#(number),"error":{"kind":"bad-hex","offset":0,"message":"the line is not hex"}}"#)
            default: lines.append(Hex.string(small.encoded()) + (number.isMultiple(of: 2) ? "\r" : "")); expected.append(small.json.serialized())
            }
        }
        let run = try await Tool.run(["decode", "--lines"], stdin: Data(lines.joined(separator: "\n").utf8))
        #expect(run.status == 0, "\(run.stderr)")
        let output = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(output.count == expected.count + 1 && output.last == "")
        #expect(Array(output.dropLast()) == expected)
    }

    @Test func readsRawBytesFromStdinAndHexFromAFile() async throws {
        let bytes = NDEFMessage(records: [.uri("https://example.com/x"), .text("hi")]).encoded()
        let raw = try await Tool.run(["decode", "-", "--raw"], stdin: Data(bytes))
        #expect(raw.status == 0)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ndef-cli-\(UUID().uuidString).hex")
        try Data((Hex.string(bytes) + "\n").utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try await Tool.run(["decode", "--file", file.path])
        #expect(fromFile.status == 0)
        #expect(raw.stdout == fromFile.stdout)
        #expect(try Self.json(raw.stdout)["records"] as? [Any] != nil)
    }

    @Test func decodesMemoryImages() async throws {
        for vector in try Self.vectors("type2-memory.json") {
            let run = try await Tool.run(["decode", "--memory", vector["memory_hex"] as? String ?? ""])
            if vector["valid"] as? Bool == true {
                #expect(run.status == 0, "\(vector["name"] ?? "")")
                let output = try Self.json(run.stdout)
                #expect(output["cc"] != nil && output["tlvs"] != nil)
                let records = output["records"] as? [[String: Any]] ?? []
                let ndef = try #require(Hex.bytes(vector["ndef_hex"] as? String ?? ""))
                #expect(records.count == (ndef.isEmpty ? 0 : try NDEFMessage(bytes: ndef).records.count))
            } else {
                #expect(run.status == 65)
                #expect(run.stderr.hasPrefix("error: \(vector["error"] as? String ?? "?") at byte "), "\(run.stderr)")
            }
        }
    }

    @Test func lenientPrintsTheRecordsBeforeTheDamage() async throws {
        let run = try await Tool.run(["decode", "--lenient", "91010e55046578616d706c652e636f6d2f6110000051010e5402"])
        #expect(run.status == 0)
        let output = try Self.json(run.stdout)
        #expect((output["records"] as? [Any])?.count == 2)
        let error = try #require(output["error"] as? [String: Any])
        #expect(error["kind"] as? String == "truncated-payload")
        #expect(error["record"] as? Int == 3)
    }

    @Test func encodesRecordsInOrder() async throws {
        let run = try await Tool.run(["encode", "--uri", "https://example.com", "--text", "Tür", "--lang", "de",
                                "--mime", "text/plain", "--data", "hello", "--json", #"{"a":1}"#,
                                "--external", "example.com:x", "--data", "raw", "--aar", "com.example.app"])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = NDEFMessage(records: [.uri("https://example.com"), .text("Tür", locale: "de"), .mime("text/plain", "hello".utf8),
                                             .json(#"{"a":1}"#), .external("example.com:x", "raw".utf8), .androidApp("com.example.app")])
        #expect(run.stdout == Hex.string(expected.encoded()) + "\n")
    }

    @Test func encodesAMemoryImageThatDecodesBack() async throws {
        let image = try await Tool.run(["encode", "--uri", "https://example.com/door", "--memory", "ntag213", "--uid", "04a1b2c3d4e5f6"])
        #expect(image.status == 0)
        let bytes = try #require(Hex.bytes(image.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(bytes.count == 45 * 4)
        let decoded = try await Tool.run(["decode", "--memory", Hex.string(bytes)])
        let records = try Self.json(decoded.stdout)["records"] as? [[String: Any]]
        #expect(records?.first?["uri"] as? String == "https://example.com/door")

        let tooBig = try await Tool.run(["encode", "--text", String(repeating: "x", count: 200), "--memory", "ntag213"])
        #expect(tooBig.status == 65)
        #expect(tooBig.stderr == "error: message-too-large: message is 207 bytes, the tag holds 142\n")
    }

    @Test(arguments: [
        ["decode"], ["decode", "--file", "a", "d00000"], ["decode", "--lines", "d00000"], ["encode"],
        ["encode", "--lang", "de"], ["encode", "--mime", "text/plain"], ["encode", "--uri", "x:", "--memory", "ntag999"],
        ["encode", "--json", "{nope"], ["encode", "--uri", "x:", "--chunk-size", "0"], ["decode", "--bogus", "d00000"],
    ])
    func usageErrorsExitSixtyFour(_ arguments: [String]) async throws {
        let run = try await Tool.run(arguments)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("error: "))
    }

    @Test(arguments: ["decode", "encode"])
    func help(command: String) async throws {
        let run = try await Tool.run([command, "--help"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("Usage: tagrouter \(command)"))
    }

    @Test func version() async throws {
        #expect(try await Tool.run(["--version"]).stdout.hasPrefix("tagrouter "))
    }
}
