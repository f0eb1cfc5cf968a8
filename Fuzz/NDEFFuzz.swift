// libFuzzer entry point for the NDEF decoder, the Type 2 TLV walker and the JSON parser.
// Built by scripts/fuzz.sh together with Sources/NDEF/**/*.swift as one module
// (so there is no `import NDEF`; OrderedJSON is built as a module first); not part of Package.swift.
import OrderedJSON

/// Feeds one input to every parser and checks the round-trip properties; a
/// violated property traps, which libFuzzer reports as a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    let (salvaged, error) = NDEFMessage.decodeLenient(bytes)
    for record in salvaged.records { _ = record.content }
    _ = salvaged.firstURI
    _ = salvaged.firstText
    _ = error?.description

    if let message = try? NDEFMessage(bytes: bytes) {
        precondition(error == nil, "strict decoding accepted what lenient decoding rejected")
        precondition(message == salvaged, "strict and lenient decoding disagree")
        for chunkSize in [nil, 1, 5, 64] as [Int?] {
            let again = try? NDEFMessage(bytes: message.encoded(chunkSize: chunkSize))
            precondition(again == message, "encode → decode is not the identity (chunk size \(String(describing: chunkSize)))")
        }
    }

    if let content = try? Type2TLVArea.parse(bytes) {
        precondition(content.ndefOffset + content.ndefMessage.count <= bytes.count, "NDEF message past the area")
    }
    _ = try? Type2Memory.parse(image: bytes)
    _ = try? JSONValue.parse(bytes: bytes)
    return 0
}
