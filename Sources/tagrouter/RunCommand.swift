/// `tagrouter run`: run the daemon: readers → routes → actions
enum RunCommand: Command {
    static let name = "run"
    static let summary = "run the daemon: readers → routes → actions"
    static let usage = "Usage: tagrouter run (not built yet)"

    static func run(_ arguments: Arguments) async throws(CLIError) {
        throw .runtime("'tagrouter run' is not built yet")
    }
}
