import OrderedJSON
import TagCore

/// A change to the daemon's named tags, asked on the control socket by `tagrouter tags learn`, `rename` and
/// `forget` (docs/control.md "`name`, `rename` and `forget`"): the daemon writes it into the tags its config uses,
/// with its own rights, as the live page's "name this tag" does, and reloads. So a member of the service's group,
/// who may not write the service's folder, names tags as root does.
public enum TagNamesEdit: Sendable, Equatable {
    /// The tag `uid` gets `name`: the entry listing it renamed, else a new entry in `groups`.
    case name(TagUID, as: String, groups: [String])
    /// The entry named `old` is called `new`.
    case rename(String, to: String)
    /// The entry named `name` goes.
    case forget(String)

    /// The request that asks for it.
    public var request: JSONObject {
        switch self {
        case .name(let uid, let name, let groups):
            return JSONObject([
                "command": .string(ControlProtocol.Command.name.rawValue), "uid": .string(uid.hex), "name": .string(name),
                "groups": .array(groups.map(JSONValue.string)),
            ])
        case .rename(let old, let new):
            return JSONObject(["command": .string(ControlProtocol.Command.rename.rawValue), "name": .string(old), "to": .string(new)])
        case .forget(let name):
            return JSONObject(["command": .string(ControlProtocol.Command.forget.rawValue), "name": .string(name)])
        }
    }

    /// The edit `request` asks for with `command`; a field missing or of the wrong kind is refused, naming it.
    init(_ request: JSONValue, _ command: ControlProtocol.Command) throws(TagNamesProblem) {
        func text(_ field: String) throws(TagNamesProblem) -> String {
            guard let value = request[field]?.stringValue else { throw .usage("\(command.rawValue): `\(field)` must be a string") }
            return value
        }
        switch command {
        case .name:
            let uidText = try text("uid")
            guard let uid = TagUID(uidText) else { throw .usage("name: `uid` is no tag UID (hex digits): \(uidText.prefix(40))") }
            var groups: [String] = []
            if let field = request["groups"] {
                guard case .array(let values) = field, values.allSatisfy({ $0.stringValue != nil }) else {
                    throw .usage("name: `groups` must be a list of strings")
                }
                groups = values.compactMap(\.stringValue)
            }
            self = .name(uid, as: try text("name"), groups: groups)
        case .rename:
            self = .rename(try text("name"), to: try text("to"))
        case .forget:
            self = .forget(try text("name"))
        case .status, .events, .reload, .write, .read:
            throw .usage("\(command.rawValue) changes no named tag")
        }
    }
}

/// What a change of the named tags did: a sentence (`added 'door-key' (04a224b2c35e80) to /var/lib/tagrouter/tags.yaml`),
/// whether the daemon reloaded (not when nothing was written), and what the reload says waits for a restart.
public struct TagNamesChange: Sendable, Equatable {
    public let message: String
    public let reloaded: Bool
    public let notes: [String]

    public init(message: String, reloaded: Bool, notes: [String] = []) {
        self.message = message
        self.reloaded = reloaded
        self.notes = notes
    }

    var reply: String {
        ControlProtocol.reply(["changed": .string(message), "reloaded": .bool(reloaded), "notes": .array(notes.map(JSONValue.string))])
    }

    /// The change a daemon's reply reports; nil when the reply is a refusal.
    public init?(reply: JSONValue) {
        guard reply["ok"] == .bool(true), let message = reply["changed"]?.stringValue else { return nil }
        var notes: [String] = []
        if case .array(let values)? = reply["notes"] { notes = values.compactMap(\.stringValue) }
        self.init(message: message, reloaded: reply["reloaded"] == .bool(true), notes: notes)
    }
}

/// Why the named tags were not changed, by the command line's kinds (its exit status): the request (`usage`: a
/// name taken, empty, unknown, with a control character), the file (`data`: not a list, a one-line list, a config
/// the daemon then refused) or the system (`runtime`: the file cannot be written).
public enum TagNamesProblem: Error, Sendable, Equatable {
    case usage(String)
    case data(String)
    case runtime(String)

    public var message: String {
        switch self {
        case .usage(let message), .data(let message), .runtime(let message): return message
        }
    }

    var kind: String {
        switch self {
        case .usage: return "usage"
        case .data: return "data"
        case .runtime: return "runtime"
        }
    }

    var reply: String { ControlProtocol.failure(message, ["kind": .string(kind)]) }

    /// The refusal a daemon's reply reports (`{"ok":false,"error":…,"kind":…}`).
    public init(reply: JSONValue) {
        let message = reply["error"]?.stringValue ?? "the daemon did not say why: \(reply.serialized().prefix(200))"
        switch reply["kind"]?.stringValue {
        case "usage": self = .usage(message)
        case "data": self = .data(message)
        default: self = .runtime(message)
        }
    }
}

/// The daemon's part: makes `edit`, asked by `origin` (`control pid 4242 (uid 1000)`), and reloads.
public typealias TagNamesEditor = @Sendable (_ edit: TagNamesEdit, _ origin: String) -> Result<TagNamesChange, TagNamesProblem>
