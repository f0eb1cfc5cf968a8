import TagCore

/// A message that arrived on a subscription, as `MQTTConnection.incoming` hands it out.
public struct MQTTIncoming: Sendable {
    public let message: MQTTMessage
    /// With `MQTTSettings.acknowledgeWhenAccepted`: release it once the message
    /// is taken care of — the connection acknowledges it to the broker, and reads
    /// the next one, only then. Nil when the message was acknowledged on arrival.
    public let acceptance: Acceptance?
}
