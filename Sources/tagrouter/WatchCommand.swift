/// `tagrouter watch`: print every reader and tag event as JSON lines
enum WatchCommand: Command {
    static let name = "watch"
    static let summary = "print every reader and tag event as JSON lines"
    static let usage = "Usage: tagrouter watch (not built yet)"

    static func run(_ arguments: Arguments) async throws(CLIError) {
        throw .runtime("'tagrouter watch' is not built yet")
    }
}
