/// Whether a config uses the originality check (`tag.genuine`), so that readers
/// with `originality_check: auto` ask arriving tags for their signature (READ_SIG
/// costs ~8 ms a tap). Used: a route condition on `genuine` (or a `json` condition
/// on `tag.genuine` / `tag.signature`), a template that names `tag.genuine` or
/// `tag.signature`, a `tags:` entry with `require_genuine`. A whole event sent on
/// (`{{json}}`, an `mqtt` payload) does not count: a node whose events a central
/// router checks sets `originality_check: always` (docs/secure-tags.md).
enum GenuineUse {
    /// The members of `tag` that only the originality check fills.
    static let fields = ["genuine", "signature"]

    static func inConfig(routes: [Route], routesNode: ConfigNode?, tags: TagRegistry) -> Bool {
        routes.contains { $0.matcher.looksAtGenuine }
            || tags.entries.contains(where: \.requiresGenuine)
            || routesNode.map(namesGenuineInTemplate) == true
    }

    /// True when a scalar under `node` (an action's option) has a `{{ }}` naming `tag.genuine` or `tag.signature`.
    private static func namesGenuineInTemplate(_ node: ConfigNode) -> Bool {
        switch node.content {
        case .scalar(let text, _):
            guard text.contains("{{") else { return false }
            return fields.contains { text.contains("tag." + $0) }
        case .sequence(let elements):
            return elements.contains(where: namesGenuineInTemplate)
        case .mapping(let entries):
            return entries.contains { namesGenuineInTemplate($0.value) }
        }
    }
}

extension Matcher {
    /// Whether a condition reads the originality check's verdict or signature.
    var looksAtGenuine: Bool {
        conditions.contains { condition in
            condition.key == "genuine" || GenuineUse.fields.contains { condition.key.hasPrefix("json.tag." + $0) }
        }
    }
}
