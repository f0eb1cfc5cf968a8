import TagCore

/// `mqtt: {commands: true}`: the daemon listens on `<base_topic>/<reader>/write`
/// for each reader, writes the next tag placed on that reader, and answers on
/// `<base_topic>/<reader>/write/result` (docs/home-assistant.md "Writing tags").
struct MQTTWriteCommands: Sendable {
    let baseTopic: String
    let readers: [String]
    let allowLock: Bool
    /// The daemon's readers; nil when it runs none (`check-config`, an events file).
    let jobs: (any TagJobRunner)?

    static func topic(baseTopic: String, reader: String) -> String { "\(baseTopic)/\(reader)/write" }

    /// The topics to subscribe to, one per reader.
    var subscriptions: [String] { readers.map { Self.topic(baseTopic: baseTopic, reader: $0) } }

    /// The reader whose write topic `topic` is, if it is one.
    func reader(of topic: String) -> String? {
        readers.first { Self.topic(baseTopic: baseTopic, reader: $0) == topic }
    }

    /// Does the request in `message` on `reader` and returns the result message.
    /// A retained request is refused: it would write a tag again at every restart.
    /// The request's `id`, if it has one, is echoed in the result.
    func answer(_ message: MQTTMessage, reader: String) async -> MQTTMessage {
        var reply: JSONObject
        let id = (try? JSONValue.parse(message.text))?["id"]
        do throws(TagJobRefusal) {
            guard !message.retain else {
                throw TagJobRefusal(.badRequest, "a retained write request is ignored (it would write a tag at every restart); publish it without retain")
            }
            let request = try MQTTWriteRequest(message.payload, allowLock: allowLock)
            guard let jobs else { throw TagJobRefusal(.noReader, "this daemon runs no readers") }
            reply = await jobs.run(request.job, reader: reader).json
            if reply["ok"] == true, let tagID = request.homeAssistantTagID { reply["tag_id"] = .string(tagID) }
        } catch {
            if error.reason == .badRequest { Log.warning("MQTT write request refused", JSONObject(["topic": .string(message.topic), "error": .string(error.message)])) }
            reply = TagJobResult.refused(error).json
        }
        reply["reader"] = .string(reader)
        reply["id"] = id
        return MQTTMessage(topic: message.topic + "/result", text: JSONValue.object(reply).serialized(), qos: 1)
    }
}
