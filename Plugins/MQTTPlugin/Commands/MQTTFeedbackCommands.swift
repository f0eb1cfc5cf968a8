import OrderedJSON
import SystemKit
import TagCore

/// `mqtt: {commands: {token_file: …}}` also listens on `<base_topic>/<reader>/feedback`:
/// `{"token": …, "pattern": "success"}` — any moment of `readers[].feedback` (`arrival`,
/// `success`, `failure`, `no_match`, `refused`) — shows that moment's pattern on
/// the reader, so an automation can answer a tap (door opened → green), as
/// ESPHome tag readers' `tag_ok`/`tag_ko` do. Only the config's patterns can be
/// shown: a message chooses a moment, never bytes. A request without the
/// commands' token is dropped unanswered (debug log only: a stranger's flood
/// writes no lines); a retained or unreadable one with the token is logged.
struct MQTTFeedbackCommands: Sendable {
    let baseTopic: String
    let readers: [String]
    let token: CommandToken
    let board: FeedbackBoard

    static func topic(baseTopic: String, reader: String) -> String { "\(baseTopic)/\(reader)/feedback" }

    /// The topics to subscribe to, one per reader.
    var subscriptions: [String] { readers.map { Self.topic(baseTopic: baseTopic, reader: $0) } }

    /// The reader whose feedback topic `topic` is, if it is one.
    func reader(of topic: String) -> String? {
        readers.first { Self.topic(baseTopic: baseTopic, reader: $0) == topic }
    }

    /// Shows the requested moment on `reader` (queued: returns at once).
    func apply(_ message: MQTTMessage, reader: String) {
        let request = message.payload.count <= 4096 ? try? JSONValue.parse(message.text) : nil
        guard case .string(let given)? = request?["token"], token.accepts(given) else {
            return Log.debug("MQTT feedback request without the token dropped", JSONObject(["topic": .string(String(message.topic.prefix(256)))]))
        }
        guard !message.retain else {
            return refuse(message, "a retained feedback request is ignored (it would show at every restart); publish it without retain")
        }
        guard case .string(let name)? = request?["pattern"], let moment = ReaderFeedback.Moment(rawValue: name) else {
            let moments = ReaderFeedback.Moment.allCases.map(\.rawValue).joined(separator: ", ")
            return refuse(message, "expected {\"pattern\": <one of \(moments)>}")
        }
        board.post(moment, reader: reader)
    }

    private func refuse(_ message: MQTTMessage, _ reason: String) {
        Log.warning("MQTT feedback request refused", JSONObject(["topic": .string(message.topic), "error": .string(reason)]))
    }
}
