import OrderedJSON
import SystemKit
import TagRouter

/// One `- mqtt:` action: renders topic and payload for each delivery and
/// publishes through the shared connection, returning once the broker has
/// acknowledged the message (QoS ≥ 1) or it was written (QoS 0).
struct MQTTAction: Action {
    /// What the payload is made of.
    enum Format: String, CaseIterable {
        /// The `payload` template, by default the event JSON.
        case json
        /// Tasmota's PN532 message (`{"Time":…,"PN532":{"UID":…,"DATA":…}}`).
        case tasmota
    }

    static let spec = OptionSpec("publish the event to the MQTT broker", scalarOption: "topic", [
        Option("topic", .template, "topic; default `<base_topic>/{{reader}}/{{event}}` (`tele/{{reader}}/SENSOR` with `payload_format: tasmota`)"),
        Option("payload", .template, "payload; default: the event JSON"),
        Option("qos", .int(0...2), default: "1", "0 at most once, 1 at least once, 2 exactly once per connection"),
        Option("retain", .bool, default: "false", "ask the broker to keep the message for later subscribers"),
        Option("payload_format", .choice(Format.allCases.map(\.rawValue)), default: "json", "`tasmota`: Tasmota's PN532 JSON, for templates written for Tasmota readers"),
    ])

    let connection: MQTTConnection
    let topic: Template
    let payload: Template?
    let format: Format
    let qos: Int
    let retain: Bool
    let hold: Duration
    /// Signs each message (`mqtt.sign`); nil: unsigned.
    let signingKey: EventSignature.Key?

    init(_ options: ConfigValue, connection: MQTTConnection, baseTopic: String, hold: Duration, signingKey: EventSignature.Key? = nil) throws(ConfigErrors) {
        format = options.choice("payload_format")
        if format == .tasmota, options.has("payload") {
            throw options.error("payload", "`payload` and `payload_format: tasmota` both set; keep one")
        }
        let defaultTopic = format == .tasmota ? "tele/{{reader}}/SENSOR" : "\(baseTopic)/{{reader}}/{{event}}"
        topic = options.optionalTemplate("topic") ?? (try? Template(defaultTopic, environment: [:])) ?? Template(literal: defaultTopic)
        payload = options.optionalTemplate("payload")
        qos = options.int("qos")
        retain = options.bool("retain")
        self.connection = connection
        self.hold = hold
        self.signingKey = signingKey
    }

    /// The message for `delivery`, or nil when the format has none for this event.
    func message(for delivery: Delivery) -> MQTTMessage? {
        let text: String
        switch format {
        case .json:
            text = payload?.render(delivery.variables) ?? delivery.eventText
        case .tasmota:
            guard let tasmota = TasmotaPayload.payload(for: delivery.event) else { return nil }
            text = tasmota
        }
        var message = MQTTMessage(topic: topic.render(delivery.variables), text: text, qos: qos, retain: retain)
        if let signingKey { message.userProperties = EventSignature.properties(signing: message.payload, with: signingKey) }
        return message
    }

    func perform(_ delivery: Delivery) async throws(ActionError) {
        guard let message = message(for: delivery) else {
            Log.debug("mqtt: no \(format.rawValue) message for \(delivery.event.kind.rawValue)", JSONObject(["event_id": .string(delivery.event.id)]))
            return
        }
        do {
            try await connection.publish(message, hold: hold)
        } catch .invalidMessage(let topic, let reason) {
            throw .permanent("route '\(delivery.route)': \(MQTTError.invalidMessage(topic: topic, reason: reason))")
        } catch .notDelivered(let topic, let waited, let lastProblem) where connection.status.isDown {
            throw .targetDown(MQTTError.notDelivered(topic: topic, waited: waited, lastProblem: lastProblem).description)
        } catch {
            throw .retryable(error.description)
        }
    }

    func describe(_ delivery: Delivery) -> String {
        guard let message = message(for: delivery) else { return "publish nothing (\(format.rawValue) has no message for \(delivery.event.kind.rawValue))" }
        let shownPayload = payload?.display(delivery.variables) ?? message.text
        return "publish to \(topic.display(delivery.variables)) qos \(qos)\(retain ? " retained" : ""): \(shownPayload)"
    }
}
