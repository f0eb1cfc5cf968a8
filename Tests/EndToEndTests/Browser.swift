import Foundation
import Harness
import OrderedJSON
import TestSupport

/// Debian's chromium, headless, driven by selenium through `drive-browser.py`
/// beside this file: one command at a time, each answered before the next.
final class Browser {
    private let driver: RunningTool
    private var answered = 1  // the "ready" line

    init() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("drive-browser.py").path
        driver = try RunningTool(try TestVenv.python(), [script], input: true)
        try await driver.waitForStdout(containing: #"{"ready": true}"#, timeout: .seconds(60))
    }

    func open(_ url: String) async throws { try await command(["op": "open", "url": .string(url)]) }

    /// Waits up to `timeout` for an element matching `css` whose text holds `text`; returns how long it took.
    @discardableResult
    func wait(for css: String, holding text: String = "", visible: Bool = false, timeout: Duration = .seconds(20)) async throws -> Duration {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let reply = try await command(["op": "wait", "css": .string(css), "text": .string(text), "visible": .bool(visible), "timeout": .double(seconds)])
        if case .double(let elapsed)? = reply["elapsed"] { return .milliseconds(Int(elapsed * 1000)) }
        return .zero
    }

    /// How many elements match `css` now (of them, how many are displayed, when `visible`).
    func count(_ css: String, visible: Bool = false) async throws -> Int {
        let reply = try await command(["op": "count", "css": .string(css), "visible": .bool(visible)])
        guard case .int(let count)? = reply["count"] else { throw TestFailure(description: "browser: no count in \(reply.serialized())") }
        return Int(count)
    }

    func type(_ text: String, into css: String) async throws { try await command(["op": "type", "css": .string(css), "text": .string(text)]) }

    func click(_ css: String) async throws { try await command(["op": "click", "css": .string(css)]) }

    func screenshot(to path: String) async throws { try await command(["op": "screenshot", "path": .string(path)]) }

    /// From the next page opened on, the page's `setTimeout` waits 1/`factor` of what it asks: its own logic,
    /// on a faster clock (a retry the page schedules after `Retry-After: 10` comes after 1 s at 10).
    func hastenTimers(by factor: Int) async throws { try await command(["op": "hasten-timers", "factor": .int(Int64(factor))]) }

    func quit() async throws {
        try await command(["op": "quit"])
        _ = try await driver.termination(timeout: .seconds(30))
    }

    /// Sends one command and returns its reply; throws with the page's text when it did not succeed.
    @discardableResult
    private func command(_ command: JSONValue) async throws -> JSONValue {
        driver.send(line: command.serialized())
        answered += 1
        let lines = try await driver.waitForStdout(lines: answered, timeout: .seconds(60))
        let reply = try JSONValue.parse(lines[answered - 1].text)
        guard reply["ok"] == true else {
            throw TestFailure(description: "browser: \(command.serialized()) failed: \(reply["error"]?.plainText ?? "")\n--- the page shows:\n\(reply["page"]?.plainText ?? "")")
        }
        return reply
    }
}
