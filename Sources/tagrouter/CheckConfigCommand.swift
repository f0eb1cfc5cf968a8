/// `tagrouter check-config`: validate a config file; --explain shows which routes an event matches
enum CheckConfigCommand: Command {
    static let name = "check-config"
    static let summary = "validate a config file; --explain shows which routes an event matches"
    static let usage = "Usage: tagrouter check-config (not built yet)"

    static func run(_ arguments: Arguments) async throws(CLIError) {
        throw .runtime("'tagrouter check-config' is not built yet")
    }
}
