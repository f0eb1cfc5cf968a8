/// `tagrouter devices`: list NFC readers and explain why one cannot be opened
enum DevicesCommand: Command {
    static let name = "devices"
    static let summary = "list NFC readers and explain why one cannot be opened"
    static let usage = "Usage: tagrouter devices (not built yet)"

    static func run(_ arguments: Arguments) async throws(CLIError) {
        throw .runtime("'tagrouter devices' is not built yet")
    }
}
