import TagCore
import TagRouter

/// The exec plugin protocol, version 1 (docs/plugins.md): a hello line, then
/// one event line per delivery, each answered by one reply line.
enum ExecProtocol {
    static let version = 1

    /// The first line a plugin reads.
    static func helloLine(route: String) -> String {
        JSONValue.object(JSONObject(["protocol": .int(Int64(version)), "program": "tagrouter", "route": .string(route)])).serialized()
    }

    /// The event as documented, plus `route` and `attempt`.
    static func eventLine(_ delivery: Delivery) -> String {
        guard case .object(var object) = delivery.event.json else { return delivery.event.json.serialized() }
        object["route"] = .string(delivery.route)
        object["attempt"] = .int(Int64(delivery.attempt))
        return JSONValue.object(object).serialized()
    }

    /// What one reply line means: nil for success, else the error to report.
    /// A line that is not a reply is a protocol error (the caller restarts the plugin).
    static func interpret(_ line: String) -> Result<Void, ReplyError> {
        guard let reply = try? JSONValue.parse(line), case .bool(let ok)? = reply["ok"] else {
            return .failure(.malformed(String(line.prefix(200))))
        }
        if ok { return .success(()) }
        let message = reply["error"]?.stringValue ?? "the plugin reported a failure"
        return .failure(reply["retry"] == .bool(true) ? .retry(message) : .fail(message))
    }

    /// Why a reply is not a success.
    enum ReplyError: Error, Equatable {
        /// `{"ok":false,"retry":true}`.
        case retry(String)
        /// `{"ok":false}`.
        case fail(String)
        /// Not a JSON object with a boolean `ok`.
        case malformed(String)
    }
}
