import TagRouter

/// The rules a topic to publish to must follow before it reaches libmosquitto.
///
/// Topics are rendered from tag contents (`topic: "p/{{text}}"`), and a broker
/// drops the whole connection over a topic it finds malformed ("Malformed UTF-8"),
/// so the message would be resent on every reconnect, blocking every MQTT action.
/// A topic that breaks a rule is refused for that one message instead.
/// (A Swift `String` is always valid UTF-8, so that rule holds by construction.)
enum PublishTopic {
    /// MQTT's limit on a UTF-8 string (a two-byte length prefix).
    static let maximumBytes = 65_535

    /// Why `topic` cannot be published to, naming the character and its position,
    /// or nil when it can.
    static func problem(_ topic: String) -> String? {
        if topic.isEmpty { return "the topic is empty" }
        let bytes = topic.utf8.count
        if bytes > maximumBytes { return "the topic is \(bytes) bytes long; MQTT allows \(maximumBytes)" }
        return ForbiddenCharacter.first(in: topic, refusal).map { "the topic has \($0)" }
    }

    /// What mosquitto refuses in a topic name besides controls (MQTT 3.1.1 §1.5.3,
    /// §4.7.1): Unicode noncharacters, and the wildcards only filters may use.
    private static func refusal(_ scalar: Unicode.Scalar) -> String? {
        if let control = ForbiddenCharacter.control(scalar) { return control }
        switch scalar.value {
        case 0xFDD0...0xFDEF: return "a Unicode noncharacter"
        case _ where scalar.value & 0xFFFE == 0xFFFE: return "a Unicode noncharacter"
        case 0x2B, 0x23: return "a wildcard (only subscriptions may use + and #)"
        default: return nil
        }
    }
}
