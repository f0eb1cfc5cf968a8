import OrderedJSON
import TagRouter

/// A name made from a message's topic — an `mqtt` input's `reader:` or
/// `node:` — by a template over the topic: `{{levels.1}}` is its second level
/// (`tele/front-door/SENSOR` → `front-door`), `{{topic}}` the whole topic.
struct TopicName: Sendable {
    /// The variables such a template may name.
    static let variables: Template.Variables = ["topic": nil, "levels": []]

    let template: Template

    /// Parses `text`; a variable other than the topic's is an error.
    init(_ text: String) throws(TemplateError) {
        template = try Template(text, environment: [:], variables: Self.variables)
    }

    /// The name of the level at `index`: `{{levels.<index>}}`.
    init(level index: Int) {
        template = (try? Template("{{levels.\(index)}}", environment: [:], variables: Self.variables)) ?? Template(literal: "")
    }

    /// The name for `topic`, or why it cannot be one (empty, too long, control characters).
    func name(for topic: String) -> Result<String, TopicNameError> {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false).map { JSONValue.string(String($0)) }
        let name = template.render(.object(JSONObject(["topic": .string(topic), "levels": .array(levels)])))
        if name.isEmpty { return .failure(TopicNameError(reason: "`\(template.source)` is empty for this topic")) }
        if name.utf8.count > 256 { return .failure(TopicNameError(reason: "`\(template.source)` is longer than 256 bytes for this topic")) }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return .failure(TopicNameError(reason: "`\(template.source)` holds a control character for this topic"))
        }
        return .success(name)
    }
}

/// Why a topic gave no usable name.
struct TopicNameError: Error, Sendable {
    let reason: String
}
