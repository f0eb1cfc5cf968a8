import OrderedJSON
import TagCore
import TagRouter

/// The exec plugin protocol, version 2 (docs/plugins.md): a hello line, then
/// one event line per delivery, each answered by one line that names the
/// event's `id`.
enum ExecProtocol {
    static let version = 2
    /// A line from the plugin this long or longer is a protocol error (its
    /// buffer is cut there, so a plugin cannot grow the daemon's memory).
    static let maximumLineBytes = 1 << 20

    /// The first line a plugin reads.
    static func helloLine(route: String) -> String {
        JSONValue.object(JSONObject(["protocol": .int(Int64(version)), "program": "tagrouter", "version": .string(tagrouterVersion), "route": .string(route)])).serialized()
    }

    /// The event as documented, plus `route` and `attempt`.
    static func eventLine(_ delivery: Delivery) -> String {
        var writer = JSONWriter(capacity: 1024)
        writer.writeObject { line in
            delivery.event.writeMembers(into: &line)
            line.member("route", string: delivery.route)
            line.member("attempt", .int(Int64(delivery.attempt)))
        }
        return writer.text
    }

    /// What an answer says about its event.
    enum Outcome: Equatable {
        /// `{"ok":true}`.
        case ok
        /// `{"ok":false,"retry":true}`.
        case retry(String)
        /// `{"ok":false}`.
        case fail(String)
    }

    /// What one line from the plugin is.
    enum Line: Equatable {
        /// Blank, or the plugin's optional hello in the version tagrouter speaks: read on.
        case skip
        /// An answer (a JSON object with a boolean `ok`) for the event whose `id` it names; nil when it names none.
        case answer(id: String?, Outcome)
        /// The plugin's hello names a version tagrouter does not speak.
        case unsupported(JSONValue)
        /// Not a JSON object with a boolean `ok` (or a hello): the pairing is lost.
        case malformed(String)
        /// `maximumLineBytes` or longer (cut there).
        case tooLong
    }

    static func interpret(_ line: String) -> Line {
        if line.utf8.count >= maximumLineBytes { return .tooLong }
        if line.allSatisfy(\.isWhitespace) { return .skip }
        guard let object = try? JSONValue.parse(line), case .object = object else { return .malformed(String(line.prefix(200))) }
        guard case .bool(let ok)? = object["ok"] else {
            guard let version = object["protocol"] else { return .malformed(String(line.prefix(200))) }
            return version == .int(Int64(Self.version)) ? .skip : .unsupported(version)
        }
        let id = object["id"]?.stringValue
        if ok { return .answer(id: id, .ok) }
        let message = object["error"]?.stringValue ?? "the plugin reported a failure"
        return .answer(id: id, object["retry"] == .bool(true) ? .retry(message) : .fail(message))
    }
}
