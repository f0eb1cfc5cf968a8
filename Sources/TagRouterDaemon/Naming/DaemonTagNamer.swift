import DaemonControl
import DaemonHTTP
import OrderedJSON
import Synchronization
import SystemKit
import TagCore

/// The daemon's own changes to its named tags: the live page's "name this tag", and `tagrouter tags learn`,
/// `rename` and `forget` asked on the control socket (`TagNamesEdit`). Each is the edit of the tags file that
/// `tags` makes itself (`TagsFile`: checks, comments and order kept, atomic replace, owner and mode kept),
/// written with the daemon's rights, then the daemon's own reload — the one SIGHUP and `tagrouter reload`
/// run. One change at a time.
final class DaemonTagNamer: TagNamer {
    private let config: String
    private let reload: @Sendable () -> ReloadOutcome
    private let turn = Mutex<Void>(())

    init(config: String, reload: @escaping @Sendable () -> ReloadOutcome) {
        self.config = config
        self.reload = reload
    }

    /// The live page's naming.
    func name(_ uid: TagUID, as name: String, groups: String) -> NamingOutcome {
        let edit = TagNamesEdit.name(uid, as: name, groups: TagsFile.groups(groups))
        switch change(edit, logged: ("tag named from the live page", "tag not named from the live page"), JSONObject()) {
        case .success(let change):
            return .done(([change.message + (change.reloaded ? "; the daemon reloaded its config" : "")] + change.notes).joined(separator: "; "))
        case .failure(.usage(let problem)):
            return .refused(problem)
        case .failure(let problem):
            return .failed(problem.message)
        }
    }

    /// A change asked on the control socket by `origin` (`control pid 4242 (uid 1000)`).
    func edit(_ edit: TagNamesEdit, origin: String) -> Result<TagNamesChange, TagNamesProblem> {
        change(edit, logged: ("named tags changed through the control socket", "named tags not changed through the control socket"),
               JSONObject(["origin": .string(origin)]))
    }

    private func change(
        _ edit: TagNamesEdit, logged messages: (done: String, refused: String), _ origin: JSONObject
    ) -> Result<TagNamesChange, TagNamesProblem> {
        turn.withLock { _ in
            let outcome = Result { () throws(TagNamesProblem) in try changed(edit) }
            var fields = origin
            fields["config"] = .string(config)
            switch outcome {
            case .success(let change):
                fields["change"] = .string(change.message)
                Log.info(messages.done, fields)
            case .failure(let problem):
                fields["problem"] = .string(problem.message)
                Log.warning(messages.refused, fields)
            }
            return outcome
        }
    }

    private func changed(_ edit: TagNamesEdit) throws(TagNamesProblem) -> TagNamesChange {
        let change: TagsFile.Naming
        do throws(TagNamesProblem) {
            let tags = try TagsFile(config: config)
            change = try tags.change(edit)
            guard let text = change.text else { return TagNamesChange(message: change.message, reloaded: false) }
            try tags.write(text)
        } catch {
            guard case .runtime(let problem) = error else { throw error }
            throw .runtime(problem + Self.hint)
        }
        switch reload() {
        case .reloaded(_, _, let notes):
            return TagNamesChange(message: change.message, reloaded: true, notes: notes)
        case .rejected(let problems):
            throw .data("\(change.message), but the daemon refused the changed config and keeps the previous one: " + problems.joined(separator: "; "))
        }
    }

    /// What to do about a file the daemon cannot write.
    private static let hint = " (the daemon writes with its own rights; under the packaged service /etc/tagrouter is read-only to it: "
        + "keep the tags in a file it can write, `tags: { file: /var/lib/tagrouter/tags.yaml }`)"
}
