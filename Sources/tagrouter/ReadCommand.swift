/// `tagrouter read`: read the tag on a reader and print its event JSON
enum ReadCommand: Command {
    static let name = "read"
    static let summary = "read the tag on a reader and print its event JSON"
    static let usage = "Usage: tagrouter read (not built yet)"

    static func run(_ arguments: Arguments) async throws(CLIError) {
        throw .runtime("'tagrouter read' is not built yet")
    }
}
