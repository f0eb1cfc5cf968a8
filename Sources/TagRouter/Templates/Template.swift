import FoundationEssentials
import OrderedJSON
import TagCore

/// A `{{path | filter}}` template over the event, parsed once at config load
/// (an unknown variable is a load error, not a surprise at the first tap) and
/// rendered for each delivery. Text outside `{{ }}` is copied verbatim.
///
/// Variables: the event's JSON fields (`event`, `id`, `time`, `reader`, `uri`,
/// `text`, `tag.uid`, `tag.type`, `tag_id`, `ndef.records.0.text`, …), `route`
/// (the route's name), `json` (the whole event, printed as JSON) and
/// `env.NAME` (an environment variable, read at load). Filters: `json`,
/// `urlencode`, `upper`, `lower`, `default: "x"`.
public struct Template: Sendable, Hashable, CustomStringConvertible {
    enum Part: Sendable, Hashable {
        case literal(String)
        /// Text that must not be printed: an `{{env.NAME}}` value, a secret file's contents.
        case secret(String)
        case expression(path: String, filters: [TemplateFilter])
    }

    /// What `display` prints in place of a secret.
    public static let mask = "***"

    /// The text as written in the config.
    public let source: String
    let parts: [Part]

    /// The `{{env.NAME}}` variables that were not set, in order, when parsed with
    /// `unsetEnvironment: .placeholder` (each rendered as `${NAME}`).
    public let unsetEnvironment: [String]

    /// What `{{env.NAME}}` becomes when `NAME` is not set (and has no `default`).
    public enum UnsetEnvironment: Sendable {
        /// A parse error: `run` does not start without it.
        case fail
        /// The text `${NAME}`, listed in `unsetEnvironment`: `check-config` on a machine not set up yet.
        case placeholder
    }

    /// The top-level variables a template may name, each with its known members
    /// (nil: none; empty: walked freely, as `ndef.records.0.text` or `topic.1`;
    /// a dotted member names a member's member, as `sun.counter`).
    public typealias Variables = [String: [String]?]

    /// The variables of templates over an event (the event's JSON members, `route`, `json`).
    public static let eventVariables: Variables = [
        "event": nil, "id": nil, "time": nil, "reader": nil, "node": nil, "tag_id": nil, "ndef_error": nil,
        "uri": nil, "text": nil, "dwell_ms": nil, "message": nil, "route": nil,
        "tag": ["uid", "uid_dashed", "type", "nfc_forum_type", "atqa", "sak", "ndef_capacity", "writable", "name", "groups", "signature", "genuine", "sun"]
            + [TagInfo.SUNField.verified, TagInfo.SUNField.uid, TagInfo.SUNField.counter, TagInfo.SUNField.reason].map { "sun." + $0 },
        "ndef": [], "json": [],
    ]

    /// Parses `source`; `environment` resolves `{{env.NAME}}` now, so secrets
    /// stay out of events and a missing variable is reported at load. A path
    /// outside `variables` (by default the event's) is a parse error.
    public init(_ source: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                unsetEnvironment: UnsetEnvironment = .fail, variables: Variables = Template.eventVariables) throws(TemplateError) {
        self.source = source
        let parser = TemplateParser(source: source, environment: environment, unsetEnvironment: unsetEnvironment, variables: variables)
        (parts, self.unsetEnvironment) = try parser.parse()
    }

    /// A template that renders `text` verbatim.
    public init(literal text: String) {
        source = text
        parts = [.literal(text)]
        unsetEnvironment = []
    }

    /// The text before the first `{{ }}` (all of it for a constant template):
    /// what decides, for instance, a URL's scheme and host. An `{{env.NAME}}`
    /// ends it too: its value is a secret and is never printed in an error.
    public var literalPrefix: String {
        guard case .literal(let text)? = parts.first else { return "" }
        return text
    }

    /// What every rendering starts with, secrets included: the text and the
    /// `{{env.…}}` values before the first event variable. Only the operator
    /// wrote it, so checks of a rendered value may trust it (a URL's host);
    /// never print it.
    public var fixedPrefix: String {
        var prefix = ""
        for part in parts {
            switch part {
            case .literal(let text), .secret(let text): prefix += text
            case .expression: return prefix
            }
        }
        return prefix
    }

    /// A template that renders `text` verbatim but displays it masked (the
    /// contents of a `*_file` secret); its `source` is the mask.
    public init(secret text: String) {
        source = Self.mask
        parts = [.secret(text)]
        unsetEnvironment = []
    }

    /// True when the template has no variables: it renders the same for every event.
    public var isConstant: Bool {
        parts.allSatisfy { if case .expression = $0 { return false } else { return true } }
    }

    /// Renders with `variables` (see `Delivery.variables`): missing values print
    /// as nothing, strings bare, other values as compact JSON.
    public func render(_ variables: JSONValue) -> String {
        render(variables) { $0 }
    }

    /// Renders for people to read (logs, `--dry-run`, `check-config --explain`):
    /// as `render`, with every `{{env.…}}` value and secret file masked as `***`.
    public func display(_ variables: JSONValue) -> String {
        render(variables) { _ in Self.mask }
    }

    private func render(_ variables: JSONValue, secret: (String) -> String) -> String {
        var output = ""
        for part in parts {
            switch part {
            case .literal(let text):
                output += text
            case .secret(let text):
                output += secret(text)
            case .expression(let path, let filters):
                var value = variables.value(atPath: path)
                for filter in filters { value = filter.apply(to: value) }
                output += value?.plainText ?? ""
            }
        }
        return output
    }

    public var description: String { source }

    /// The variables templates see for `event` delivered by route `route`:
    /// the event's JSON members, plus `route` and `json` (the whole event).
    public static func variables(for event: TagEvent, route: String) -> JSONValue {
        variables(json: event.json, route: route)
    }

    /// The variables for an event already in JSON form.
    static func variables(json: JSONValue, route: String) -> JSONValue {
        guard case .object(var object) = json else { return json }
        object["route"] = .string(route)
        object["json"] = json
        return .object(object)
    }
}

/// A template that could not be parsed: `offset` counts characters from the
/// start of the template text.
public struct TemplateError: Error, Sendable, CustomStringConvertible {
    public var offset: Int
    public var message: String

    public var description: String { "at character \(offset + 1): \(message)" }
}
