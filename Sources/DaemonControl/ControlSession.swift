@preconcurrency import Glibc
import Dispatch
import FoundationEssentials
import Lifecycle
import OrderedJSON
import Synchronization
import SystemKit
import TagCore
import TagRouter

/// One client of the control socket, on its own thread: the peer check and
/// hello, then requests until the client hangs up (or watches events).
struct ControlSession {
    /// What every session answers from.
    struct Context: Sendable {
        let observer: DaemonObserver
        let policy: PeerPolicy
        let limits: ControlLimits
        let jobs: (any TagJobRunner)?
        let reload: @Sendable () -> ReloadOutcome
        let tagNames: TagNamesEditor?
    }

    /// Records kept for a watching client that reads slowly.
    static let mailboxCapacity = 4096

    let socket: UnixSocket
    let context: Context
    /// True once the server is stopping.
    let closing: @Sendable () -> Bool

    func serve() {
        guard let peer = PeerCredentials(socket: socket.fd) else {
            socket.write(JSONValue.object(JSONObject(["error": "the kernel did not say who you are (SO_PEERCRED failed)"])).serialized() + "\n")
            return
        }
        if let refusal = context.policy.refusal(of: peer) {
            Log.warning("control connection refused", JSONObject(["uid": .int(Int64(peer.uid)), "pid": .int(Int64(peer.pid)), "reason": .string(refusal)]))
            socket.write(JSONValue.object(JSONObject(["error": .string("refused: " + refusal)])).serialized() + "\n")
            return
        }
        let hello = JSONObject([
            "protocol": .int(ControlProtocol.version), "server": "tagrouter", "version": .string(tagrouterVersion),
            "pid": .int(Int64(getpid())), "config": .string(context.observer.status.configFile),
        ])
        guard socket.write(JSONValue.object(hello).serialized() + "\n") else { return }
        var lines = SocketLines(socket)
        while !closing(), let line = lines.next(timeout: context.limits.idleMilliseconds) {
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            guard let request = try? JSONValue.parse(line), case .object = request else {
                guard socket.write(ControlProtocol.failure("not a JSON object: \(line.prefix(80))")) else { return }
                continue
            }
            if let version = request["protocol"] {
                guard version == .int(ControlProtocol.version) else {
                    socket.write(ControlProtocol.failure("this daemon speaks control protocol \(ControlProtocol.version), not \(version.serialized())"))
                    return
                }
                continue
            }
            guard let name = request["command"]?.stringValue, let command = ControlProtocol.Command(rawValue: name) else {
                let known = ControlProtocol.Command.allCases.map(\.rawValue).joined(separator: ", ")
                guard socket.write(ControlProtocol.failure("unknown command \(request["command"]?.serialized() ?? "(none)"); known: \(known)")) else { return }
                continue
            }
            switch command {
            case .status:
                guard socket.write(ControlProtocol.reply(["status": context.observer.status.json])) else { return }
            case .reload:
                guard socket.write(reload()) else { return }
            case .events:
                return watch(EventFilter(request), lines: &lines)
            case .write, .read:
                guard socket.write(tagJob(request, command, peer: peer, lines: &lines)) else { return }
            case .name, .rename, .forget:
                guard socket.write(editTagNames(request, command, peer: peer)) else { return }
            }
        }
    }

    /// Hands the job to the reader and waits on this connection's thread for its answer
    /// (a timer answers `no_tag` at the job's deadline, so the wait is bounded). A client
    /// that hangs up, or the server stopping, withdraws a job still waiting for a tag.
    private func tagJob(_ request: JSONValue, _ command: ControlProtocol.Command, peer: PeerCredentials, lines: inout SocketLines) -> String {
        guard let jobs = context.jobs else {
            return JSONValue.object(TagJobResult.refused(TagJobRefusal(.noReader, "this daemon runs no readers (it reads an events file)")).json).serialized() + "\n"
        }
        let result: TagJobResult
        do throws(TagJobRefusal) {
            let parsed = try TagJobRequest(request, command: command, origin: "control pid \(peer.pid)")
            let answer = Mutex<TagJobResult?>(nil)
            let done = DispatchSemaphore(value: 0)
            let handle = jobs.submit(parsed.job, reader: parsed.reader) { result in
                answer.withLock { $0 = result }
                done.signal()
            }
            while done.wait(timeout: .now() + .milliseconds(250)) == .timedOut {
                // The client says nothing while it waits: readable means it hung up.
                if closing() || (lines.readable(timeout: 0) && lines.next(timeout: 0) == nil) { handle.cancel() }
            }
            result = answer.withLock { $0 } ?? .refused(TagJobRefusal(.failed, "the reader gave no answer"))
        } catch {
            result = .refused(error)
        }
        return JSONValue.object(result.json).serialized() + "\n"
    }

    /// Names, renames or forgets a tag in the daemon's tags, with the daemon's rights, for a peer the policy
    /// admitted (a member of its group may not write the service's folder itself).
    private func editTagNames(_ request: JSONValue, _ command: ControlProtocol.Command, peer: PeerCredentials) -> String {
        guard let editor = context.tagNames else {
            return TagNamesProblem.usage("this daemon's config is not a file: there are no tags to change").reply
        }
        do throws(TagNamesProblem) {
            let edit = try TagNamesEdit(request, command)
            return try editor(edit, "control pid \(peer.pid) (uid \(peer.uid))").get().reply
        } catch {
            return error.reply
        }
    }

    private func reload() -> String {
        switch context.reload() {
        case .reloaded(let readers, let routes, let notes):
            return ControlProtocol.reply([
                "reloaded": .object(JSONObject(["readers": .int(Int64(readers)), "routes": .int(Int64(routes))])), "notes": .array(notes.map(JSONValue.string)),
            ])
        case .rejected(let problems):
            return ControlProtocol.failure("the config has problems; the running config stays", ["problems": .array(problems.map(JSONValue.string))])
        }
    }

    /// Streams the records `filter` admits, one JSON line each, until the client
    /// hangs up or the server stops. A client that reads too slowly loses the
    /// oldest records (a `{"type":"dropped","count":N}` line says how many).
    private func watch(_ filter: EventFilter, lines: inout SocketLines) {
        // The observer pushes (never waits); the session's thread takes.
        let mailbox = BoundedQueue<ObservedRecord>(capacity: Self.mailboxCapacity)
        let id = context.observer.watch { record in
            if filter.admits(record) { mailbox.push(record) }
        }
        defer { context.observer.unwatch(id) }
        guard socket.write(ControlProtocol.reply(["watching": .object(filter.json)])) else { return }
        while !closing() {
            let (records, dropped) = mailbox.take(waiting: .milliseconds(250))
            if dropped > 0, !socket.write(JSONValue.object(JSONObject(["type": "dropped", "count": .int(Int64(dropped))])).serialized() + "\n") { return }
            for record in records where !socket.write(record.json.serialized() + "\n") { return }
            // The client says nothing more after `events`: readable means it hung up.
            if lines.readable(timeout: 0), lines.next(timeout: 0) == nil { return }
        }
    }
}
