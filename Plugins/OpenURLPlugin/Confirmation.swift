import ChildProcess
import OrderedJSON
import SystemKit

/// Asks the user before opening, like a phone's "open this link?" notification:
/// `notify-send --action=open=Open --wait` prints `open` when the user clicks.
/// No click within `timeout` (the notifier is then killed) means no.
struct Confirmation: Sendable {
    let notifier: [String]
    let timeout: Duration

    /// True when the user chose "Open"; notifier failures count as no.
    func ask(toOpen uri: String) async -> Bool {
        let milliseconds = Int(timeout.seconds * 1000)
        let arguments = notifier + [
            "--app-name=tagrouter", "--action=open=Open", "--wait", "--expire-time=\(milliseconds)",
            "Open this link from an NFC tag?", Self.escapeMarkup(uri),
        ]
        do {
            let result = try await ChildProcess.run(
                ChildCommand(arguments), options: ChildOptions(stderr: .inherit, timeout: timeout, killGrace: .milliseconds(500)))
            return result.stdoutText.split(whereSeparator: \.isNewline).contains("open")
        } catch {
            Log.warning("open: cannot ask for confirmation", JSONObject(["error": .string("\(error)")]))
            return false
        }
    }

    /// notify-send bodies are Pango markup: show the URI as text.
    static func escapeMarkup(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }
}
