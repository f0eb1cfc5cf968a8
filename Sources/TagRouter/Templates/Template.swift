import Foundation
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
        case expression(path: String, filters: [TemplateFilter])
    }

    /// The text as written in the config.
    public let source: String
    let parts: [Part]

    /// Parses `source`; `environment` resolves `{{env.NAME}}` now, so secrets
    /// stay out of events and a missing variable is reported at load.
    public init(_ source: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(TemplateError) {
        self.source = source
        self.parts = try TemplateParser(source: source, environment: environment).parse()
    }

    /// A template that renders `text` verbatim.
    public init(literal text: String) {
        source = text
        parts = [.literal(text)]
    }

    /// What every rendering starts with: the text before the first `{{ }}` (all of
    /// it for a constant template; `{{env.NAME}}` counts as text, resolved at load).
    public var literalPrefix: String {
        guard case .literal(let text)? = parts.first else { return "" }
        return text
    }

    /// True when the template has no variables: it renders the same for every event.
    public var isConstant: Bool {
        parts.allSatisfy { if case .literal = $0 { return true } else { return false } }
    }

    /// Renders with `variables` (see `Delivery.variables`): missing values print
    /// as nothing, strings bare, other values as compact JSON.
    public func render(_ variables: JSONValue) -> String {
        var output = ""
        for part in parts {
            switch part {
            case .literal(let text):
                output += text
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
