import Lifecycle

/// A message that arrived on a subscription, as `MQTTConnection.incoming` hands it out.
public struct MQTTIncoming: Sendable {
    public let message: MQTTMessage
    /// With `MQTTSettings.acknowledgeWhenAccepted`: release it once the message
    /// is taken care of — the connection acknowledges its group to the broker,
    /// and reads the next group, once every message of it is released. Nil when
    /// the message was acknowledged on arrival.
    public let acceptance: Acceptance?
}
