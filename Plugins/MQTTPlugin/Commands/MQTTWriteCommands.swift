import OrderedJSON
import TagCore
import TagRuntime

/// `mqtt: {commands: {token_file: …}}`: the daemon listens on `<base_topic>/<reader>/write`
/// for each reader, writes the next tag placed on that reader, and answers on
/// `<base_topic>/<reader>/write/result` (docs/home-assistant.md "Writing tags").
/// A request must carry the token; one without it is counted, logged at most once
/// a minute and not answered. One request per reader waits at a time, for at most
/// `maximumTimeout`; the answer names no UID (others may read the result topic).
struct MQTTWriteCommands: Sendable {
    /// The largest request read; a larger one is dropped unread (a tag holds far less).
    static let maximumPayload = 65_536
    /// The longest a request may wait for a tag (`timeout`): its reader's next tap is the request's until then.
    static let maximumTimeout: Duration = .seconds(120)

    let baseTopic: String
    let readers: [String]
    let allowLock: Bool
    let token: CommandToken
    /// The daemon's readers; nil when it runs none (`check-config`, an events file).
    let jobs: (any TagJobRunner)?
    let refusals = CommandRefusals("write")
    let slots = WriteSlots()

    static func topic(baseTopic: String, reader: String) -> String { "\(baseTopic)/\(reader)/write" }

    /// The topics to subscribe to, one per reader.
    var subscriptions: [String] { readers.map { Self.topic(baseTopic: baseTopic, reader: $0) } }

    /// The reader whose write topic `topic` is, if it is one.
    func reader(of topic: String) -> String? {
        readers.first { Self.topic(baseTopic: baseTopic, reader: $0) == topic }
    }

    /// What a message on a write topic comes to before any reader is asked.
    enum Reading {
        /// Not answered: not a request at all, or not from someone with the token.
        case dropped(CommandRefusals.Reason, String)
        /// Answered with this refusal (`id`: the request's, echoed).
        case refused(TagJobRefusal, id: JSONValue?)
        /// A job for the reader (`id`: the request's, echoed).
        case request(MQTTWriteRequest, id: JSONValue?)
    }

    /// Reads `message`: its size and JSON, then the token, then the request itself.
    /// A retained request is refused: it would write a tag again at every restart.
    func read(_ message: MQTTMessage) -> Reading {
        guard message.payload.count <= Self.maximumPayload,
            let request = try? JSONValue.parse(String(decoding: message.payload, as: UTF8.self)), case .object = request
        else { return .dropped(.malformed, "a write request is a JSON object of at most \(Self.maximumPayload) bytes") }
        guard let given = request["token"]?.stringValue, token.accepts(given) else {
            return .dropped(.unauthenticated, request["token"] == nil ? "the request carries no token" : "the request's token is not the one in mqtt.commands.token_file")
        }
        guard !message.retain else {
            return .refused(TagJobRefusal(.badRequest, "a retained write request is ignored (it would write a tag at every restart); publish it without retain"), id: request["id"])
        }
        do throws(TagJobRefusal) {
            return .request(try MQTTWriteRequest(request, allowLock: allowLock, maximumTimeout: Self.maximumTimeout), id: request["id"])
        } catch {
            return .refused(error, id: request["id"])
        }
    }

    /// What to do with a message on a write topic, decided at once: only a request
    /// that took its reader's slot waits for a reader, so a flood of requests is
    /// answered (or dropped) without a task each — at most one waits per reader.
    enum Handling: Sendable {
        /// Not answered (`read` says why; counted and logged).
        case dropped
        /// The answer, to publish now: a refusal, `busy` included.
        case answer(MQTTMessage)
        /// The request holds its reader's slot: `perform` asks the reader, gives the slot
        /// back and returns the result to publish. Run it once, in a task of its own.
        case perform(@Sendable () async -> MQTTMessage)
    }

    /// Reads the request in `message` on `reader` and takes the reader's slot for it
    /// when it is free. The request's `id`, if it has one, is echoed in the answer.
    func handle(_ message: MQTTMessage, reader: String) -> Handling {
        switch read(message) {
        case .dropped(let reason, let error):
            refusals.refuse(reason, topic: message.topic, error: error)
            return .dropped
        case .refused(let refusal, let id):
            return .answer(Self.result(refuse(refusal, topic: message.topic), to: message, reader: reader, id: id))
        case .request(let request, let id):
            guard let jobs else {
                return .answer(Self.result(refuse(TagJobRefusal(.noReader, "this daemon runs no readers"), topic: message.topic), to: message, reader: reader, id: id))
            }
            guard slots.take(reader) else {
                let busy = TagJobRefusal(.busy, "a write request already waits for a tag on reader '\(reader)'; wait for its result (or its timeout) first")
                return .answer(Self.result(refuse(busy, topic: message.topic), to: message, reader: reader, id: id))
            }
            let slots = slots
            return .perform {
                defer { slots.release(reader) }
                var reply = Self.published(await jobs.run(request.job, reader: reader))
                if reply["ok"] == true, let tagID = request.homeAssistantTagID { reply["tag_id"] = .string(tagID) }
                return Self.result(reply, to: message, reader: reader, id: id)
            }
        }
    }

    /// The result message for the request in `message`: `reply` with the reader and the request's `id`.
    private static func result(_ reply: JSONObject, to message: MQTTMessage, reader: String, id: JSONValue?) -> MQTTMessage {
        var reply = reply
        reply["reader"] = .string(reader)
        reply["id"] = id
        return MQTTMessage(topic: message.topic + "/result", text: JSONValue.object(reply).serialized(), qos: 1)
    }

    /// `refusal` as JSON; a wrong or repeated request is also counted and logged (at most once a minute).
    private func refuse(_ refusal: TagJobRefusal, topic: String) -> JSONObject {
        if refusal.reason == .badRequest || refusal.reason == .busy {
            refusals.refuse(refusal.reason == .busy ? .busy : .badRequest, topic: topic, error: refusal.message)
        }
        return TagJobResult.refused(refusal).json
    }

    /// `result` as the requester sees it: a written tag without its UID.
    private static func published(_ result: TagJobResult) -> JSONObject {
        guard case .written(let report) = result else { return result.json }
        return JSONObject(["ok": true, "written": .object(report.json(showingUID: false))])
    }
}
