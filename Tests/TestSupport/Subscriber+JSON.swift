import Harness
import OrderedJSON

extension Subscriber.Received {
    /// The payload as a JSON object (`.null` when it is not JSON).
    public var json: JSONValue { (try? JSONValue.parse(text)) ?? .null }
}
