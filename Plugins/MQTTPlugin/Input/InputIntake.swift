import FoundationEssentials
import TagCore
import TagRouter

/// What an `mqtt` input checks before it believes a message, beyond its
/// format: who signed it (`trust: signed`), that what it names fits the
/// bounds, that it does not speak for one of this daemon's own readers, and
/// that it is neither stale nor from the future. The tag's name, groups and
/// "known" come from the local `tags:` registry only: they are stripped here.
struct InputIntake: Sendable {
    /// Who vouches for a message on the input's topic.
    enum Trust: String, Sendable, CaseIterable {
        /// Its signature under one of the input's `keys` (format `tagrouter` only).
        case signed
        /// Whoever may publish on the topic: the broker's ACLs and client certificates decide.
        case broker
    }

    /// An event stamped further ahead of this machine's clock than this is refused: the
    /// nodes keep time (NTP), so their clocks differ by far less (docs/security.md).
    static let futureSkew: Duration = .seconds(10)
    /// Event ids are UUIDs (36 bytes) or similar: at most this many bytes.
    static let eventIDLimit = 64
    /// UIDs are at most 10 bytes (ISO 14443 triple size).
    static let uidByteLimit = 10
    /// Reader and node names: at most this many bytes.
    static let nameLimit = 64

    let trust: Trust
    /// The keys a signed message may name, by key id.
    let keys: [String: EventSignature.Key]
    /// Events older than this are refused; nil: the format carries no trustworthy time (tasmota, uid).
    let maxAge: Duration?
    /// This daemon's own readers: an input cannot speak for them.
    let localReaders: Set<String>

    /// The key id `message` is signed with — the node it speaks for — or nil under `trust: broker`;
    /// throws why it may not be read (unsigned, an unknown key, a signature that does not match).
    func signer(of message: MQTTMessage) throws(InputProblem) -> String? {
        guard trust == .signed else { return nil }
        if let problem = EventSignature.problem(with: message.payload, properties: message.userProperties, keys: keys) {
            throw InputProblem(InputRefusal(problem), "\(problem.rawValue): the input takes only events signed with a key of its `keys`")
        }
        return message.userProperties.first { $0.name == EventSignature.keyIDProperty }?.value
    }

    /// The node of an event signed by `signer`: the key's own. A node named by the payload or
    /// by the input's `node:` template (`claims`) that is another one is refused: a key speaks
    /// for the node it belongs to, whatever the message or its topic say.
    static func node(signedBy signer: String, claims: [(node: String?, where: String)]) throws(InputProblem) -> String {
        for claim in claims {
            guard let node = claim.node, node != signer else { continue }
            throw InputProblem(
                .wrongNode, "\(claim.where) names node '\(node.prefix(nameLimit))', but the message is signed with the key of node '\(signer)'; a key speaks for its own node only")
        }
        return signer
    }

    /// `event` as it may be routed — name, groups and "known" left to the local registry — or why it is refused.
    func admit(_ event: TagEvent, now: Date = Date()) throws(InputProblem) -> TagEvent {
        if event.id.isEmpty || event.id.utf8.count > Self.eventIDLimit {
            throw InputProblem("the event id is \(event.id.utf8.count) bytes; ids are 1 to \(Self.eventIDLimit) bytes")
        }
        if let uid = event.tag?.uid, uid.bytes.count > Self.uidByteLimit {
            throw InputProblem("the UID is \(uid.bytes.count) bytes; UIDs are at most \(Self.uidByteLimit) bytes")
        }
        if let problem = Self.nameProblem(event.reader) { throw InputProblem("reader name: \(problem)") }
        if let node = event.node, let problem = Self.nameProblem(node) { throw InputProblem("node name: \(problem)") }
        if localReaders.contains(event.reader) {
            throw InputProblem(
                .localReader, "the event names '\(event.reader)', a reader of this daemon; an input cannot speak for the daemon's own readers")
        }
        if let maxAge {
            let age = now.timeIntervalSince(event.time)
            if age > maxAge.seconds {
                throw InputProblem(.tooOld, "the event is from \(Int(age)) s ago, older than max_age (\(maxAge)); a replay or a message held too long")
            }
            if -age > Self.futureSkew.seconds {
                throw InputProblem(.fromTheFuture, "the event is stamped \(Int(-age)) s ahead of this machine's clock (at most \(Self.futureSkew) allowed)")
            }
        }
        var admitted = event
        admitted.tag?.name = nil
        admitted.tag?.groups = []
        return admitted
    }

    /// Why `name` cannot name a reader or node (it becomes a topic level, a log field, a status line), or nil.
    static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "empty" }
        if name.utf8.count > nameLimit { return "\(name.utf8.count) bytes, more than \(nameLimit)" }
        if name.unicodeScalars.contains(where: { [.control, .format].contains($0.properties.generalCategory) }) {
            return "holds a control or formatting character"
        }
        if name.contains(where: { "/#+".contains($0) }) { return "holds `/`, `#` or `+`, which are topic separators and wildcards" }
        return nil
    }
}
