import Foundation
import NDEF
import Testing

/// `tagrouter decode` on a hostile tag that nests Smart Posters thousands deep: an
/// error with exit 65 (or the records before it with `--lenient`), never a crash.
@Suite struct NestingCLITests {
    /// A URI record and a Smart Poster holding the same shape one level less deep.
    static func nested(depth: Int) -> [UInt8] {
        (0..<depth).reduce(NDEFMessage(records: [.uri("a:")]).encoded()) { inner, _ in
            NDEFMessage(records: [.uri("a:"), NDEFRecord(tnf: .wellKnown, type: Array("Sp".utf8), payload: inner)]).encoded()
        }
    }

    @Test(arguments: [1, NDEFMessage.maximumNestingDepth, NDEFMessage.maximumNestingDepth + 1, 1000, 8000])
    func strictAndLenient(_ depth: Int) async throws {
        let bytes = Self.nested(depth: depth)
        let strict = try await Tool.run(["decode", "-", "--raw"], stdin: Data(bytes))
        let lenient = try await Tool.run(["decode", "-", "--raw", "--lenient"], stdin: Data(bytes))
        let output = try DecodeEncodeCLITests.json(lenient.stdout)
        #expect(lenient.status == 0, "\(lenient.stderr)")
        if depth <= NDEFMessage.maximumNestingDepth {
            #expect(strict.status == 0, "\(strict.stderr)")
            #expect(strict.stdout == lenient.stdout)
            #expect(output["error"] == nil)
            return
        }
        let offset = bytes.count - Self.nested(depth: depth - NDEFMessage.maximumNestingDepth - 1).count
        #expect(strict.status == 65)
        #expect(strict.stdout.isEmpty)
        #expect(strict.stderr == "error: ndef-nesting-too-deep at byte \(offset): record 2: Smart Posters nest more than 8 messages deep\n")
        #expect((output["records"] as? [[String: Any]])?.map { $0["uri"] as? String } == ["a:"])
        let error = try #require(output["error"] as? [String: Any])
        #expect(error["kind"] as? String == "ndef-nesting-too-deep")
        #expect(error["offset"] as? Int == offset)
        #expect(error["record"] as? Int == 2)
    }
}
