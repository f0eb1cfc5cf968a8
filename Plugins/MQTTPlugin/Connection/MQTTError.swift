import TagRouter

/// Why the MQTT connection could not do what it was asked, worded for the
/// person reading the log: each case says what to check next.
public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broker answered CONNECT with a refusal (bad credentials, not
    /// authorised, client id rejected…); `code` is the CONNACK return/reason code.
    case refused(broker: String, code: Int, reason: String)
    /// The TCP or TLS connection could not be made or was lost.
    case unreachable(broker: String, reason: String)
    /// The broker ended the session because another client connected with the same client id (MQTT 5 reason 0x8E).
    case takenOver(broker: String, clientID: String)
    /// The broker closed a connection it had accepted, without saying why (MQTT 3.1.1 cannot):
    /// a broker restart, a network outage, or another client connecting with the same client id.
    case connectionLost(broker: String, clientID: String, reason: String)
    /// The connection gave itself up: its consumer took none of the messages
    /// waiting for it, so it read nothing, not even the broker's PINGRESP,
    /// for two `keepalive` intervals (docs/security.md, "The broker").
    case consumerStalled(broker: String, keepalive: Int)
    /// libmosquitto rejected a setting (a TLS file, the client id…) before connecting.
    case invalidSettings(String)
    /// The message was not delivered within the hold time and was taken back
    /// out of the backlog (never sent, or sent on a connection that died
    /// before the broker acknowledged it); `lastProblem` says why the broker was out of reach.
    case notDelivered(topic: String, waited: Duration, lastProblem: String)
    /// The message can never be published (an empty topic, `+`, `#` or a control character in it…); retrying will not help.
    case invalidMessage(topic: String, reason: String)
    /// The waiting task was cancelled before the message was handed to the broker; it was withdrawn.
    case cancelled(topic: String)
    /// The connection is stopped (shutting down, or never started).
    case stopped

    public var description: String {
        switch self {
        case .refused(let broker, let code, let reason):
            var text = "the MQTT broker at \(broker) refused the connection: \(reason) (code \(code))"
            if Self.credentialCodes.contains(code) {
                text += "; check mqtt.username and mqtt.password_file"
            }
            return text
        case .unreachable(let broker, let reason):
            return "cannot reach the MQTT broker at \(broker): \(reason); check mqtt.host and mqtt.port and that the broker runs"
        case .takenOver(let broker, let clientID):
            return "another client took over client id '\(clientID)' on the MQTT broker at \(broker); "
                + "give every daemon its own mqtt.client_id and check who else connects with it"
        case .connectionLost(let broker, let clientID, let reason):
            return "the MQTT broker at \(broker) closed the connection of client id '\(clientID)' (\(reason)): "
                + "a broker restart or outage, or another client connecting with the same client id"
        case .consumerStalled(let broker, let keepalive):
            return "read nothing from the MQTT broker at \(broker) for \(2 * keepalive)s, not even its keepalive answer: the messages "
                + "it sent waited for the daemon to take them (overloaded or stuck); unread messages come again only to a persistent session"
        case .invalidSettings(let message):
            return "MQTT settings rejected: \(message)"
        case .notDelivered(let topic, let waited, let lastProblem):
            return "MQTT message to \(topic) not acknowledged within \(waited) (\(lastProblem))"
        case .invalidMessage(let topic, let reason):
            return "cannot publish to \(ForbiddenCharacter.quoted(topic)): \(reason); check the action's topic template"
        case .cancelled(let topic):
            return "publishing to \(topic) was cancelled before the message went out; it was withdrawn"
        case .stopped:
            return "the MQTT connection is stopped"
        }
    }

    /// CONNACK codes meaning "who you are was not accepted": v3.1.1 4 and 5,
    /// MQTT 5 0x86 (bad user name or password) and 0x87 (not authorized).
    static let credentialCodes: Set<Int> = [4, 5, 0x86, 0x87]
}
