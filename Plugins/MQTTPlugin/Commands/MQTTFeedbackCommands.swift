import OrderedJSON
import SystemKit
import TagCore
import TagRuntime

/// `mqtt: {commands: {token_file: …}}` also listens on `<base_topic>/<reader>/feedback`:
/// `{"token": …, "pattern": "success"}` — any moment of `readers[].feedback` (`arrival`,
/// `success`, `failure`, `no_match`, `refused`) — shows that moment's pattern on
/// the reader, so an automation can answer a tap (door opened → green), as
/// ESPHome tag readers' `tag_ok`/`tag_ko` do. Only the config's patterns can be
/// shown: a message chooses a moment, never bytes. A request refused — without
/// the commands' token, not JSON, retained, naming no moment — is ignored and
/// logged as write requests are (`CommandRefusals`: at most one line a minute per
/// reason, so a stranger's flood writes no more).
struct MQTTFeedbackCommands: Sendable {
    let baseTopic: String
    let readers: [String]
    let token: CommandToken
    let board: FeedbackBoard
    let refusals = CommandRefusals("feedback")

    static func topic(baseTopic: String, reader: String) -> String { "\(baseTopic)/\(reader)/feedback" }

    /// The topics to subscribe to, one per reader.
    var subscriptions: [String] { readers.map { Self.topic(baseTopic: baseTopic, reader: $0) } }

    /// The reader whose feedback topic `topic` is, if it is one.
    func reader(of topic: String) -> String? {
        readers.first { Self.topic(baseTopic: baseTopic, reader: $0) == topic }
    }

    /// Shows the requested moment on `reader` (queued: returns at once).
    func apply(_ message: MQTTMessage, reader: String) {
        let topic = String(message.topic.prefix(256))
        guard message.payload.count <= 4096, let request = try? JSONValue.parse(message.text), case .object = request else {
            return refusals.refuse(.malformed, topic: topic, error: "not a JSON object of at most 4096 bytes")
        }
        guard case .string(let given)? = request["token"], token.accepts(given) else {
            return refusals.refuse(.unauthenticated, topic: topic, error: "no token, or not the one of `commands.token_file`")
        }
        guard !message.retain else {
            return refusals.refuse(.badRequest, topic: topic, error: "a retained feedback request is ignored (it would show at every restart); publish it without retain")
        }
        guard case .string(let name)? = request["pattern"], let moment = ReaderFeedback.Moment(rawValue: name) else {
            let moments = ReaderFeedback.Moment.allCases.map(\.rawValue).joined(separator: ", ")
            return refusals.refuse(.badRequest, topic: topic, error: "expected {\"token\": …, \"pattern\": <one of \(moments)>}")
        }
        board.post(moment, reader: reader)
    }
}
