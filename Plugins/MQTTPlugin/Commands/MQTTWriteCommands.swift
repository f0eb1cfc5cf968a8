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

    /// Does the request in `message` on `reader` and returns the result message,
    /// or nil for a request that is not authenticated (nothing is answered).
    /// A retained request is refused: it would write a tag again at every restart.
    /// The request's `id`, if it has one, is echoed in the result.
    func answer(_ message: MQTTMessage, reader: String) async -> MQTTMessage? {
        guard message.payload.count <= Self.maximumPayload,
            let request = try? JSONValue.parse(String(decoding: message.payload, as: UTF8.self)), case .object = request
        else {
            refusals.refuse(.malformed, topic: message.topic, error: "a write request is a JSON object of at most \(Self.maximumPayload) bytes")
            return nil
        }
        guard let given = request["token"]?.stringValue, token.accepts(given) else {
            let error = request["token"] == nil ? "the request carries no token" : "the request's token is not the one in mqtt.commands.token_file"
            refusals.refuse(.unauthenticated, topic: message.topic, error: error)
            return nil
        }
        var reply: JSONObject
        do throws(TagJobRefusal) {
            guard !message.retain else {
                throw TagJobRefusal(.badRequest, "a retained write request is ignored (it would write a tag at every restart); publish it without retain")
            }
            let parsed = try MQTTWriteRequest(request, allowLock: allowLock, maximumTimeout: Self.maximumTimeout)
            guard let jobs else { throw TagJobRefusal(.noReader, "this daemon runs no readers") }
            guard slots.take(reader) else {
                throw TagJobRefusal(.busy, "a write request already waits for a tag on reader '\(reader)'; wait for its result (or its timeout) first")
            }
            defer { slots.release(reader) }
            reply = Self.published(await jobs.run(parsed.job, reader: reader))
            if reply["ok"] == true, let tagID = parsed.homeAssistantTagID { reply["tag_id"] = .string(tagID) }
        } catch {
            if error.reason == .badRequest || error.reason == .busy {
                refusals.refuse(error.reason == .busy ? .busy : .badRequest, topic: message.topic, error: error.message)
            }
            reply = TagJobResult.refused(error).json
        }
        reply["reader"] = .string(reader)
        reply["id"] = request["id"]
        return MQTTMessage(topic: message.topic + "/result", text: JSONValue.object(reply).serialized(), qos: 1)
    }

    /// `result` as the requester sees it: a written tag without its UID.
    private static func published(_ result: TagJobResult) -> JSONObject {
        guard case .written(let report) = result else { return result.json }
        return JSONObject(["ok": true, "written": .object(report.json(showingUID: false))])
    }
}
