/// `tagrouter encode`: encode records to an NDEF message (hex) or a Type 2 memory image
enum EncodeCommand: Command {
    static let name = "encode"
    static let summary = "encode records to an NDEF message (hex) or a Type 2 memory image"
    static let usage = "Usage: tagrouter encode (not built yet)"

    static func run(_ arguments: Arguments) async throws(CLIError) {
        throw .runtime("'tagrouter encode' is not built yet")
    }
}
