// ndef-bench: decode and encode throughput of the NDEF codec, in messages per
// second, for the two messages of scripts/bench/ndef.sh. `ndef-bench --hex` prints
// the messages so the baseline decodes exactly the same bytes; `ndef-bench mime4k`
// measures one message only.
import BenchSupport
import NDEF

/// A typical tag: a URI and two Text records (the `multi-bench-uri-text-text` vector).
let typical = Hex.bytes(
    "91012555026578616d706c652e636f6d2f70726f64756374732f6e66632d7461673f69643d3130343211011f5402656e54617020746f206f70"
        + "656e207468652070726f6475637420706167655101295402646554697070656e2c20756d206469652050726f64756b747365697465207a7520"
        + "c3b666666e656e")!

/// One 4 KiB media record.
let mime4k = NDEFMessage(records: [.mime("application/octet-stream", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })]).encoded()

let cases: [(name: String, bytes: [UInt8])] = [("typical", typical), ("mime4k", mime4k)]

if CommandLine.arguments.contains("--hex") {
    for (name, bytes) in cases { print(name, Hex.string(bytes)) }
} else {
    let chosen = CommandLine.arguments.dropFirst()
    for (name, bytes) in cases where chosen.isEmpty || chosen.contains(name) {
        let message = try NDEFMessage(bytes: bytes)
        print(name, "decode", Int(measure { decodeAndRead(bytes) }))
        print(name, "encode", Int(measure { message.encoded().count }))
    }
}

/// Decodes strictly and reads every record's typed content, as ndeflib's decoder does.
func decodeAndRead(_ bytes: [UInt8]) -> Int {
    guard let message = try? NDEFMessage(bytes: bytes) else { return 0 }
    var sum = 0
    for record in message.records {
        switch record.content {
        case .uri(let uri): sum += uri.utf8.count
        case .text(let text): sum += text.text.utf8.count
        default: sum += record.payload.count
        }
    }
    return sum
}
