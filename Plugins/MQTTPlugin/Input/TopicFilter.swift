/// The topic filter of an `mqtt` input as the user wrote it — possibly an MQTT 5
/// shared subscription `$share/<group>/<filter>` — and what it says about the
/// topics of the messages it brings (which never carry the `$share/<group>/` part).
struct TopicFilter: Sendable, Equatable {
    /// The filter as subscribed, `$share/…` included.
    let subscription: String
    /// The levels of the filter proper, without `$share/<group>/`.
    let levels: [Substring]

    /// The filter, or why the broker would refuse it.
    static func parse(_ text: String) -> Result<TopicFilter, TopicFilterError> {
        var levels = text.split(separator: "/", omittingEmptySubsequences: false)
        if levels.first == "$share" {
            guard levels.count >= 3, !levels[1].isEmpty, !levels[1].contains(where: { "+#".contains($0) }) else {
                return .failure(TopicFilterError(reason: "a shared subscription is `$share/<group>/<filter>`, with a group name free of + and #"))
            }
            levels.removeFirst(2)
        }
        guard !levels.joined().isEmpty else { return .failure(TopicFilterError(reason: "the topic filter is empty")) }
        for (index, level) in levels.enumerated() {
            if level.contains("#"), level != "#" || index != levels.count - 1 {
                return .failure(TopicFilterError(reason: "`#` must be a whole level and the last one (`tagrouter/#`)"))
            }
            if level.contains("+"), level != "+" {
                return .failure(TopicFilterError(reason: "`+` must be a whole level (`tagrouter/+/tag.arrived`)"))
            }
        }
        if text.utf8.contains(where: { $0 == 0 }) { return .failure(TopicFilterError(reason: "the topic filter contains a NUL character")) }
        return .success(TopicFilter(subscription: text, levels: levels))
    }

    /// Whether a message on `topic` is one the filter subscribes (MQTT's rules: `+` one level,
    /// a last `#` any number, none included; a wildcard first level does not match a `$` topic).
    func matches(_ topic: String) -> Bool {
        let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
        if topic.hasPrefix("$"), let first = levels.first, first == "+" || first == "#" { return false }
        for (index, level) in levels.enumerated() {
            if level == "#" { return true }
            guard index < topicLevels.count, level == "+" || level == topicLevels[index] else { return false }
        }
        return topicLevels.count == levels.count
    }

    /// The index of the first `+` level: the level of a message's topic that names its reader by default.
    var firstWildcardLevel: Int? { levels.firstIndex(of: "+") }
}

/// Why a topic filter cannot be subscribed.
struct TopicFilterError: Error, Sendable {
    let reason: String
}
