/// `tagrouter decode`: decode an NDEF message (hex, raw bytes or a Type 2 memory image) to JSON
enum DecodeCommand: Command {
    static let name = "decode"
    static let summary = "decode an NDEF message (hex, raw bytes or a Type 2 memory image) to JSON"
    static let usage = "Usage: tagrouter decode (not built yet)"

    static func run(_ arguments: Arguments) async throws(CLIError) {
        throw .runtime("'tagrouter decode' is not built yet")
    }
}
