import DaemonControl
import OrderedJSON
import SystemKit
import TagRouterDaemon

/// Where `tags learn`, `rename` and `forget` change the named tags. When the config is the running daemon's, the
/// daemon writes the change with its own rights and reloads (the control socket's `name`, `rename`, `forget`): so
/// a member of the service's group names tags in the service's folder, which only the service and root may write.
/// Else, or when that daemon is gone, the file is written here (`TagsFile`: comments, order, owner and mode kept)
/// and whatever daemon answers is asked to reload.
struct TagNames {
    /// The tags as this user reads them (for what `learn` shows, and the change made here).
    let tags: TagsFile
    let control: String
    let throughDaemon: Bool

    /// Makes `edit` and says what it did; a refusal is the command line's failure of its kind.
    func change(_ edit: TagNamesEdit) throws(CLIError) {
        if throughDaemon, case let (client, reply)? = try? ControlOption.ask(control, as: "tagrouter tags", edit.request["command"]?.stringValue ?? "", edit.request) {
            client.close()
            guard let change = TagNamesChange(reply: reply) else { throw CLIError(TagNamesProblem(reply: reply)) }
            print(TerminalText.escaped(change.message))
            if change.reloaded { print("The daemon reloaded its config.") }
            return
        }
        let naming: TagsFile.Naming
        do throws(TagNamesProblem) {
            naming = try tags.change(edit)
            guard let text = naming.text else { return print(TerminalText.escaped(naming.message)) }
            try tags.write(text)
        } catch {
            throw CLIError(error)
        }
        print(TerminalText.escaped(naming.message))
        try reload()
    }

    /// Asks the running daemon to reload and prints how that went; a refusal is bad data (exit 65).
    private func reload() throws(CLIError) {
        guard case let (client, reply)? = try? ControlOption.ask(control, as: "tagrouter tags", "reload") else {
            print("No daemon answers at \(control): the change applies when it starts.")
            return
        }
        client.close()
        guard reply["reloaded"] == nil else { return print("The daemon reloaded its config.") }
        if case .array(let problems)? = reply["problems"] { for problem in problems { printToStderr(problem.plainText) } }
        throw .data("the daemon refused the changed config and keeps the previous one")
    }
}
