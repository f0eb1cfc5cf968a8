import OrderedJSON
import TagCore

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
    let refusals = CommandRefusals()
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

    /// Does the request in `message` on `reader` and returns the result message,
    /// or nil for one that is not answered (`read` says which). The request's
    /// `id`, if it has one, is echoed in the result.
    func answer(_ message: MQTTMessage, reader: String) async -> MQTTMessage? {
        var reply: JSONObject
        let id: JSONValue?
        switch read(message) {
        case .dropped(let reason, let error):
            refusals.refuse(reason, topic: message.topic, error: error)
            return nil
        case .refused(let refusal, let requestID):
            id = requestID
            reply = refuse(refusal, topic: message.topic)
        case .request(let request, let requestID):
            id = requestID
            reply = await write(request, reader: reader, topic: message.topic)
        }
        reply["reader"] = .string(reader)
        reply["id"] = id
        return MQTTMessage(topic: message.topic + "/result", text: JSONValue.object(reply).serialized(), qos: 1)
    }

    /// Hands `request` to `reader` unless a request already waits there; the answer as JSON.
    private func write(_ request: MQTTWriteRequest, reader: String, topic: String) async -> JSONObject {
        guard let jobs else { return refuse(TagJobRefusal(.noReader, "this daemon runs no readers"), topic: topic) }
        guard slots.take(reader) else {
            return refuse(TagJobRefusal(.busy, "a write request already waits for a tag on reader '\(reader)'; wait for its result (or its timeout) first"), topic: topic)
        }
        defer { slots.release(reader) }
        var reply = Self.published(await jobs.run(request.job, reader: reader))
        if reply["ok"] == true, let tagID = request.homeAssistantTagID { reply["tag_id"] = .string(tagID) }
        return reply
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
