import OrderedJSON
import TagRouter

/// The control socket's conversation (docs/control.md): the daemon greets with
/// `{"protocol":1,"server":"tagrouter","version":…,"pid":…}` (or `{"error":…}`
/// and hangs up on a refused peer); the client may greet back with
/// `{"protocol":1,"client":…}`; then one JSON request per line, one reply per
/// line — except `events`, whose reply is followed by one line per record
/// until the client hangs up. Unknown fields are ignored.
public enum ControlProtocol {
    public static let version: Int64 = 1

    /// The commands the daemon answers.
    public enum Command: String, Sendable, CaseIterable {
        case status, events, reload, write, read, name, rename, forget
    }

    static func reply(_ members: KeyValuePairs<String, JSONValue>) -> String {
        var object = JSONObject(["ok": true])
        for (key, value) in members { object[key] = value }
        return JSONValue.object(object).serialized() + "\n"
    }

    static func failure(_ message: String, _ members: KeyValuePairs<String, JSONValue> = [:]) -> String {
        var object = JSONObject(["ok": false, "error": .string(message)])
        for (key, value) in members { object[key] = value }
        return JSONValue.object(object).serialized() + "\n"
    }
}

/// What a reload asked through the socket (or by SIGHUP) came to.
public enum ReloadOutcome: Sendable {
    /// The new config runs; `notes` name what it changed that waits for a restart.
    case reloaded(readers: Int, routes: Int, notes: [String] = [])
    /// The file has problems (each at `file:line:col`); the running config stays.
    case rejected(problems: [String])
}

/// Which records `tagrouter events` wants: each filter, when given, must hold.
public struct EventFilter: Sendable, Equatable {
    public var reader: String?
    public var route: String?
    public var kind: String?

    public init(reader: String? = nil, route: String? = nil, kind: String? = nil) {
        self.reader = reader
        self.route = route
        self.kind = kind
    }

    init(_ request: JSONValue) {
        self.init(reader: request["reader"]?.stringValue, route: request["route"]?.stringValue, kind: request["kind"]?.stringValue)
    }

    public func admits(_ record: ObservedRecord) -> Bool {
        if let reader, record.reader != reader { return false }
        if let kind, record.kind.rawValue != kind { return false }
        if let route, !record.routes.contains(route) { return false }
        return true
    }

    var json: JSONObject {
        var object = JSONObject()
        object["reader"] = reader.map(JSONValue.string)
        object["route"] = route.map(JSONValue.string)
        object["kind"] = kind.map(JSONValue.string)
        return object
    }
}
