/// `tagrouter simulate`: run a PN532 reader simulator on a pseudo-terminal
enum SimulateCommand: Command {
    static let name = "simulate"
    static let summary = "run a PN532 reader simulator on a pseudo-terminal"
    static let usage = "Usage: tagrouter simulate (not built yet)"

    static func run(_ arguments: Arguments) async throws(CLIError) {
        throw .runtime("'tagrouter simulate' is not built yet")
    }
}
