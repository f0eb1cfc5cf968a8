/// `tagrouter write`: write an NDEF message to a tag
enum WriteCommand: Command {
    static let name = "write"
    static let summary = "write an NDEF message to a tag"
    static let usage = "Usage: tagrouter write (not built yet)"

    static func run(_ arguments: Arguments) async throws(CLIError) {
        throw .runtime("'tagrouter write' is not built yet")
    }
}
