import ChildProcess
import OrderedJSON
import SystemKit
import TagRouter

/// One configured `shell` action.
struct ShellAction: Action {
    /// What runs: an argument vector of templates, or a literal shell script.
    enum Program: Sendable {
        case argv([Template])
        case script(String)
    }

    let program: Program
    let route: String
    let timeout: Duration
    let workingDirectory: String?
    let environment: [(String, Template)]
    /// A failed run is retryable only when the user configured `retry`.
    let retryOnFailure: Bool
    let limit: ConcurrencyLimit

    func command(for delivery: Delivery) -> ChildCommand {
        let arguments: [String]
        switch program {
        case .argv(let templates): arguments = templates.map { $0.render(delivery.variables) }
        case .script(let script): arguments = ["/bin/sh", "-c", script]
        }
        var variables = ChildCommand.inheritedEnvironment
        for (name, template) in environment { variables[name] = template.render(delivery.variables) }
        for (name, value) in EventEnvironment.variables(for: delivery.event) { variables[name] = value }
        return ChildCommand(arguments, environment: variables, workingDirectory: workingDirectory)
    }

    func perform(_ delivery: Delivery) async throws(ActionError) {
        let command = command(for: delivery)
        let input = Array((delivery.eventText + "\n").utf8)
        let result: ChildTermination
        do {
            result = try await limit.run { () async throws(ChildProcessError) -> ChildTermination in
                try await ChildProcess.run(command, options: ChildOptions(input: .bytes(input), timeout: timeout))
            }
        } catch {
            switch error {
            case .cancelledWhileWaiting:
                // The command never ran: delivering the event later (from the spool) does it once.
                throw .retryable("shell: stopped while waiting for one of shell.max_concurrent slots (shutting down)")
            case .failed(let startFailure):
                throw .permanent("shell: \(startFailure)")
            }
        }
        var fields = JSONObject([
            "route": .string(route), "event_id": .string(delivery.event.id), "command": .string(shownCommand(for: delivery)), "status": .string(result.description),
            "duration_ms": .int(Int64(result.duration.seconds * 1000)),
        ])
        if !result.stdoutTail.isEmpty { fields["stdout"] = .string(Self.lastLines(result.stdoutText)) }
        if !result.stderrTail.isEmpty { fields["stderr"] = .string(Self.lastLines(result.stderrText)) }
        // Successes and the full output are debug lines; a failure's line (the worker's) carries its last stderr line.
        Log.debug(result.succeeded ? "shell command finished" : "shell command failed", fields)
        guard result.succeeded else {
            var message = "shell: \(command.arguments.first ?? "") \(result)"
            if let last = result.stderrText.split(whereSeparator: \.isNewline).last { message += ": \(last)" }
            throw retryOnFailure ? .retryable(message) : .permanent(message)
        }
    }

    func describe(_ delivery: Delivery) -> String { "run \(shownCommand(for: delivery))" }

    /// The command line as logs and `--dry-run` show it: `{{env.…}}` values masked.
    private func shownCommand(for delivery: Delivery) -> String {
        guard case .argv(let templates) = program else { return command(for: delivery).description }
        return ChildCommand(templates.map { $0.display(delivery.variables) }).description
    }

    /// The last few lines of a tail, for one log entry.
    private static func lastLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).suffix(5).joined(separator: "\n")
    }
}
