import DaemonControl
import DaemonHTTP
import OrderedJSON
import Synchronization
import SystemKit
import TagCore

/// The live page's "name this tag" inside `tagrouter run`: the same edit of the
/// tags file as `tagrouter tags learn` (`TagsFile.naming`: checks, comments and
/// order kept, atomic replace), then the daemon's own reload — the one that
/// SIGHUP and `tagrouter reload` run. One naming at a time.
final class PageTagNamer: TagNamer {
    private let config: String
    private let reload: @Sendable () -> ReloadOutcome
    private let turn = Mutex<Void>(())

    init(config: String, reload: @escaping @Sendable () -> ReloadOutcome) {
        self.config = config
        self.reload = reload
    }

    func name(_ uid: TagUID, as name: String, groups: String) -> NamingOutcome {
        turn.withLock { _ in
            let outcome = named(uid, as: name, groups: groups)
            var fields = JSONObject(["uid": .string(uid.hex), "name": .string(name), "config": .string(config)])
            switch outcome {
            case .done(let message):
                fields["change"] = .string(message)
                Log.info("tag named from the live page", fields)
            case .refused(let problem), .failed(let problem):
                fields["problem"] = .string(problem)
                Log.warning("tag not named from the live page", fields)
            }
            return outcome
        }
    }

    private func named(_ uid: TagUID, as name: String, groups: String) -> NamingOutcome {
        let naming: TagsFile.Naming
        let tags: TagsFile
        do throws(CLIError) {
            tags = try TagsFile(config: config)
            naming = try tags.naming(uid, as: name, groups: TagsFile.groups(groups))
            guard let text = naming.text else { return .done(naming.message) }
            try tags.write(text)
        } catch {
            if case .usage(let problem) = error { return .refused(problem) }
            return .failed(error.message + Self.hint(error))
        }
        switch reload() {
        case .reloaded(_, _, let notes):
            return .done(([naming.message + "; the daemon reloaded its config"] + notes).joined(separator: "; "))
        case .rejected(let problems):
            return .failed("\(naming.message), but the daemon refused the changed config and keeps the previous one: " + problems.joined(separator: "; "))
        }
    }

    /// What to do about a file the daemon cannot write.
    private static func hint(_ error: CLIError) -> String {
        guard case .runtime = error else { return "" }
        return " (the daemon writes with its own rights; under the packaged service /etc/tagrouter is read-only to it: "
            + "keep the tags in a file it can write, `tags: { file: /var/lib/tagrouter/tags.yaml }`)"
    }
}
