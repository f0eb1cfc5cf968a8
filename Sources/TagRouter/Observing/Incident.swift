import FoundationEssentials
import OrderedJSON

/// Something that went wrong, and when: a reader's or an action's last error.
public struct Incident: Sendable, Equatable {
    public var message: String
    public var time: Date

    public init(_ message: String, at time: Date) {
        self.message = message
        self.time = time
    }

    var json: JSONValue { .object(JSONObject(["message": .string(message), "time": .string(time.statusFormat)])) }
}

extension Date {
    /// The instant as `status` and the event stream write it: ISO 8601 with milliseconds, UTC.
    public var statusFormat: String { formatted(Self.statusStyle) }

    private static let statusStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
