/// One node of a parsed config document (YAML or JSON), with the mark of where
/// it starts so every later check can point at the line and column.
public struct ConfigNode: Sendable {
    /// What the node holds.
    public indirect enum Content: Sendable {
        /// A scalar's text; `plain` is false when it was quoted or a block scalar,
        /// so `"true"` stays a string and `true` can be a boolean.
        case scalar(String, plain: Bool)
        case sequence([ConfigNode])
        /// Members in file order (duplicate keys are rejected by the parser).
        case mapping([Entry])
    }

    /// One `key: value` member of a mapping; the key keeps its own mark.
    public struct Entry: Sendable {
        public var key: String
        public var keyMark: SourceMark
        public var value: ConfigNode

        public init(key: String, keyMark: SourceMark, value: ConfigNode) {
            self.key = key
            self.keyMark = keyMark
            self.value = value
        }
    }

    public var content: Content
    public var mark: SourceMark

    public init(_ content: Content, mark: SourceMark) {
        self.content = content
        self.mark = mark
    }

    /// True for an empty plain scalar, `~` or `null` (YAML's null).
    public var isNull: Bool {
        if case .scalar(let text, plain: true) = content { return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL" }
        return false
    }

    /// The scalar text, nil for a collection.
    public var scalar: String? {
        if case .scalar(let text, _) = content { return text }
        return nil
    }

    /// The members, nil unless a mapping.
    public var entries: [Entry]? {
        if case .mapping(let entries) = content { return entries }
        return nil
    }

    /// The elements, nil unless a sequence.
    public var elements: [ConfigNode]? {
        if case .sequence(let elements) = content { return elements }
        return nil
    }

    /// The value of member `key` of a mapping.
    public subscript(key: String) -> ConfigNode? {
        entries?.first { $0.key == key }?.value
    }

    /// What kind of node this is, for messages: "a mapping", "a list", "a string".
    public var kindDescription: String {
        switch content {
        case .scalar: return isNull ? "nothing" : "\"\(scalar ?? "")\""
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }
}
