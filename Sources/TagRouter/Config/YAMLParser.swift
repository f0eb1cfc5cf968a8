import CYAML

/// Parses YAML (and therefore JSON) text into a `ConfigNode` tree with libyaml's
/// event API, keeping every node's line and column. Anchors and aliases are
/// resolved; duplicate mapping keys and multiple documents are errors.
///
/// A config may come from anyone who can write the file, so the parser has
/// limits (see `Limits`): a 587-byte alias bomb ("billion laughs") would
/// otherwise expand to billions of nodes, and 40,000 nested `[` exhaust the stack
/// of everything that walks the tree. Each is an error at the place it is crossed.
public enum YAMLParser {
    /// How large a config may be; far beyond any real one.
    public enum Limits {
        /// Bytes in a config file (1 MiB).
        public static let fileBytes = 1 << 20
        /// Sequences and mappings inside one another.
        public static let depth = 64
        /// Uses of an alias (`*name`).
        public static let aliases = 1_000
        /// Nodes in the document with every alias expanded to the nodes it stands for.
        public static let expandedNodes = 100_000
        /// Bytes of text (scalars) in the document with every alias expanded (4 MiB):
        /// a long string repeated by a few hundred aliases is an alias bomb too.
        public static let expandedBytes = 4 << 20
    }

    /// Parses one document. An empty document is an empty mapping.
    public static func parse(_ text: String, file: String) throws(ConfigErrors) -> ConfigNode {
        guard text.utf8.count <= Limits.fileBytes else {
            throw ConfigErrors(mark: SourceMark(file: file, line: 1, column: 1), path: "",
                               message: "the config is larger than \(Limits.fileBytes) bytes (1 MiB), the most that is read")
        }
        var builder = TreeBuilder(file: file)
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw ConfigErrors(mark: SourceMark(file: file, line: 1, column: 1), path: "", message: "out of memory starting the YAML parser")
        }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        // A Result out of the closure, not a typed throw through it: Swift 6.0 (Debian 13's) types
        // withUnsafeBufferPointer's rethrow as `any Error`.
        let parsed = bytes.withUnsafeBufferPointer { buffer in Result { () throws(ConfigErrors) -> ConfigNode in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var event = yaml_event_t()
            while true {
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    throw builder.syntaxError(parser, in: buffer)
                }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { break }
                try builder.consume(event)
            }
            return builder.root ?? ConfigNode(.mapping([]), mark: SourceMark(file: file, line: 1, column: 1))
        } }
        return try parsed.get()
    }
}

/// Turns the flat stream of parser events into nested nodes.
private struct TreeBuilder {
    private enum Open {
        case sequence([ConfigNode], mark: SourceMark, anchor: String?)
        case mapping([ConfigNode.Entry], pendingKey: ConfigNode?, mark: SourceMark, anchor: String?)
    }

    let file: String
    var root: ConfigNode?
    private var stack: [Open] = []
    /// For each open sequence or mapping, `expanded` when it started.
    private var expandedAtStart: [Expansion] = []
    /// Each anchored node, with what it expands to.
    private var anchors: [String: (node: ConfigNode, size: Expansion)] = [:]
    private var documents = 0
    private var aliases = 0
    /// The document so far with every alias expanded.
    private var expanded = Expansion(nodes: 0, bytes: 0)

    /// The size of (part of) the document with aliases expanded.
    private struct Expansion {
        var nodes: Int
        var bytes: Int

        static func - (end: Expansion, start: Expansion) -> Expansion { Expansion(nodes: end.nodes - start.nodes, bytes: end.bytes - start.bytes) }
    }

    init(file: String) { self.file = file }

    func mark(_ mark: yaml_mark_t) -> SourceMark {
        SourceMark(file: file, line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    func syntaxError(_ parser: yaml_parser_t, in text: UnsafeBufferPointer<UInt8>) -> ConfigErrors {
        let offset = Int(parser.problem_mark.index)
        if offset < text.count, text[offset] == UInt8(ascii: "\t") {
            return ConfigErrors(mark: mark(parser.problem_mark), path: "", message: "tabs cannot indent YAML; use spaces")
        }
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        guard let context = parser.context.map({ String(cString: $0) }) else {
            return ConfigErrors(mark: mark(parser.problem_mark), path: "", message: problem)
        }
        let start = mark(parser.context_mark)
        return ConfigErrors(mark: mark(parser.problem_mark), path: "", message: "\(context) (from line \(start.line), column \(start.column)): \(problem)")
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?, length: Int? = nil) -> String? {
        guard let pointer else { return nil }
        if let length {
            return String(decoding: UnsafeBufferPointer(start: pointer, count: length), as: UTF8.self)
        }
        return String(cString: UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
    }

    mutating func consume(_ event: yaml_event_t) throws(ConfigErrors) {
        let start = mark(event.start_mark)
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw ConfigErrors(mark: start, path: "", message: "a config file holds one YAML document; remove the second '---'")
            }
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let text = Self.string(scalar.value, length: Int(scalar.length)) ?? ""
            let node = ConfigNode(.scalar(text, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE), mark: start)
            let size = Expansion(nodes: 1, bytes: text.utf8.count)
            try count(size, at: start)
            if let anchor = Self.string(scalar.anchor) { anchors[anchor] = (node, size) }
            try add(node)
        case YAML_ALIAS_EVENT:
            let name = Self.string(event.data.alias.anchor) ?? ""
            guard let anchored = anchors[name] else {
                throw ConfigErrors(mark: start, path: "", message: "unknown alias '*\(name)'")
            }
            aliases += 1
            guard aliases <= YAMLParser.Limits.aliases else {
                throw ConfigErrors(mark: start, path: "", message: "more than \(YAMLParser.Limits.aliases) aliases (*name); "
                                   + "a config needs a few, this looks like an alias bomb")
            }
            try count(anchored.size, at: start)
            try add(anchored.node)
        case YAML_SEQUENCE_START_EVENT:
            try open(at: start)
            stack.append(.sequence([], mark: start, anchor: Self.string(event.data.sequence_start.anchor)))
        case YAML_MAPPING_START_EVENT:
            try open(at: start)
            stack.append(.mapping([], pendingKey: nil, mark: start, anchor: Self.string(event.data.mapping_start.anchor)))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let open = stack.popLast(), let startSize = expandedAtStart.popLast() else { return }
            let node: ConfigNode
            let anchor: String?
            switch open {
            case .sequence(let elements, let mark, let name):
                node = ConfigNode(.sequence(elements), mark: mark)
                anchor = name
            case .mapping(let entries, _, let mark, let name):
                node = ConfigNode(.mapping(entries), mark: mark)
                anchor = name
            }
            if let anchor { anchors[anchor] = (node, expanded - startSize) }
            try add(node)
        default:
            break
        }
    }

    /// A sequence or mapping starts at `mark`: one node more, one level deeper.
    private mutating func open(at mark: SourceMark) throws(ConfigErrors) {
        guard stack.count < YAMLParser.Limits.depth else {
            throw ConfigErrors(mark: mark, path: "", message: "sequences and mappings nest more than \(YAMLParser.Limits.depth) deep")
        }
        expandedAtStart.append(expanded)
        try count(Expansion(nodes: 1, bytes: 0), at: mark)
    }

    /// Adds `size` to the document's size with aliases expanded.
    private mutating func count(_ size: Expansion, at mark: SourceMark) throws(ConfigErrors) {
        expanded.nodes += size.nodes
        expanded.bytes += size.bytes
        let what = aliases > 0 ? "aliases expand the config to" : "the config has"
        guard expanded.nodes <= YAMLParser.Limits.expandedNodes else {
            throw ConfigErrors(mark: mark, path: "", message: "\(what) more than \(YAMLParser.Limits.expandedNodes) values; "
                               + "a config this large is a mistake or an alias bomb")
        }
        guard expanded.bytes <= YAMLParser.Limits.expandedBytes else {
            throw ConfigErrors(mark: mark, path: "", message: "\(what) more than \(YAMLParser.Limits.expandedBytes) bytes (4 MiB) of text; "
                               + "a config this large is a mistake or an alias bomb")
        }
    }

    private mutating func add(_ node: ConfigNode) throws(ConfigErrors) {
        guard let top = stack.popLast() else {
            root = node
            return
        }
        switch top {
        case .sequence(var elements, let mark, let anchor):
            elements.append(node)
            stack.append(.sequence(elements, mark: mark, anchor: anchor))
        case .mapping(var entries, let pendingKey, let mark, let anchor):
            if let key = pendingKey {
                entries.append(ConfigNode.Entry(key: key.scalar ?? "", keyMark: key.mark, value: node))
                stack.append(.mapping(entries, pendingKey: nil, mark: mark, anchor: anchor))
            } else {
                guard let name = node.scalar else {
                    stack.append(top)
                    throw ConfigErrors(mark: node.mark, path: "", message: "a mapping key must be a plain name, not \(node.kindDescription)")
                }
                if let first = entries.first(where: { $0.key == name }) {
                    stack.append(top)
                    throw ConfigErrors(mark: node.mark, path: "", message: "duplicate key '\(name)' (first at line \(first.keyMark.line))")
                }
                stack.append(.mapping(entries, pendingKey: node, mark: mark, anchor: anchor))
            }
        }
    }
}
