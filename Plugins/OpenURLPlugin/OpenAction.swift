import ChildProcess
import OrderedJSON
import SystemKit
import TagRouter

/// One configured `open` action.
struct OpenAction: Action {
    let uri: Template
    let route: String
    let policy: SchemePolicy
    let handlers: Handlers
    let confirmation: Confirmation?
    let refusals: RefusalCounter

    /// How long to wait for the opener's exit status; one still running then
    /// (a browser it started in the foreground) is left running.
    static let exitWait: Duration = .seconds(3)

    /// The checked URI and the command that opens it.
    func plan(_ delivery: Delivery) throws(SchemePolicy.Refusal) -> (uri: String, command: ChildCommand) {
        let target = uri.render(delivery.variables)
        let scheme = try policy.check(target)
        var variables = delivery.variables
        if case .object(var object) = variables {
            object["uri"] = .string(target)
            variables = .object(object)
        }
        return (target, ChildCommand(handlers.argv(scheme: scheme).map { $0.render(variables) }))
    }

    func perform(_ delivery: Delivery) async throws(ActionError) {
        let target: String
        let command: ChildCommand
        do {
            (target, command) = try plan(delivery)
        } catch {
            // The router logs this with the event id and counts it as failed.
            refusals.increment()
            throw .permanent("open: refused \(JSONValue.string(uri.render(delivery.variables)).serialized()): \(error)")
        }
        if let confirmation, await !confirmation.ask(toOpen: target) {
            Log.debug("open: not confirmed", JSONObject(["route": .string(route), "uri": .string(target)]))
            return
        }
        let opener: ChildProcess
        do {
            opener = try ChildProcess(command, options: ChildOptions(stdout: .daemonStandardError, stderr: .inherit))
        } catch {
            throw .permanent("open: \(error)")
        }
        let result = await Self.exitStatus(of: opener)
        Log.debug("open", JSONObject(["route": .string(route), "uri": .string(target), "command": .string(command.description), "status": .string(result?.description ?? "still running")]))
        if let result, !result.succeeded { throw .permanent("open: \(command.arguments[0]) \(result)") }
    }

    func describe(_ delivery: Delivery) -> String {
        do {
            return "open with \(try plan(delivery).command)"
        } catch {
            return "refuse: \(error)"
        }
    }

    /// The opener's termination, or nil if it is still running after `exitWait`.
    private static func exitStatus(of opener: ChildProcess) async -> ChildTermination? {
        await withTaskGroup(of: ChildTermination?.self) { group in
            group.addTask { await opener.termination() }
            group.addTask {
                try? await Task.sleep(for: exitWait)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
