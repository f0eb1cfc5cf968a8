import FoundationEssentials
import OrderedJSON
import SystemKit

/// A config node that passed its `OptionSpec`: plugins read their options
/// through its typed getters. An option declared with a default is read as a
/// plain value (`int("qos")`): the spec's default when the key is absent, so no
/// reader repeats it. An option without one is read with an `optional…` getter
/// (nil when absent). Because the node was validated, a getter never meets the
/// wrong type; checks the spec cannot express are reported with
/// `error(_:_:)`, which points at the key's line and column.
///
/// Reading a key the section's spec does not declare, or reading a defaulted
/// key as optional, is a mistake in the reading code: debug builds trap on it
/// (`declaredOption(_:)` says what is wrong).
public struct ConfigValue: Sendable {
    /// The node: a section given as a lone scalar (`- open: "{{uri}}"`) or as
    /// nothing (`- log`) is already turned into a mapping here.
    public let node: ConfigNode
    /// Where it is in the document, e.g. `routes[1].actions[0].mqtt`.
    public let path: String
    /// The type it was validated against (nil: not declared, e.g. an `any` value's insides).
    public let type: OptionType?
    public let context: ConfigContext

    init(node: ConfigNode, path: String, type: OptionType?, context: ConfigContext) {
        self.type = type
        self.path = path
        self.context = context
        if case .section(let spec)? = type {
            self.node = Self.normalized(node, spec: spec)
        } else {
            self.node = node
        }
    }

    /// The spec of a section value.
    public var spec: OptionSpec? {
        if case .section(let spec)? = type { return spec }
        return nil
    }

    /// Parses and validates YAML text against `spec` in one go (for tests and tools).
    public static func parse(_ yaml: String, spec: OptionSpec, path: String = "", file: String = "config.yaml", context: ConfigContext = ConfigContext()) throws(ConfigErrors) -> ConfigValue {
        let node = try YAMLParser.parse(yaml, file: file)
        var errors = ConfigErrors()
        let value = OptionValidator(context: context).validate(node, as: .section(spec), path: path, errors: &errors)
        if !errors.isEmpty { throw errors }
        return value
    }

    /// A section the config does not have, read against `spec`: every key reads as its default.
    public static func defaults(of spec: OptionSpec, path: String, context: ConfigContext = ConfigContext()) -> ConfigValue {
        ConfigValue(node: ConfigNode(.mapping([]), mark: SourceMark(file: "default of \(path)", line: 0, column: 0)), path: path, type: .section(spec), context: context)
    }

    public var mark: SourceMark { node.mark }

    /// True when the user wrote `key` (defaults do not count).
    public func has(_ key: String) -> Bool {
        _ = option(key)
        return node[key] != nil
    }

    /// The option `key` of this section's spec; nil when this value has no spec
    /// to check against (the insides of an `any` value). Throws when the spec
    /// does not declare `key`: the code reading it is wrong, not the config.
    public func declaredOption(_ key: String) throws(UndeclaredKey) -> Option? {
        guard let spec else { return nil }
        guard let option = spec.option(key) else { throw UndeclaredKey(key: key, section: path, declared: spec.options.map(\.name)) }
        return option
    }

    /// True when this section's spec declares `key` (a `match:` in `tags:` takes only some of a route's conditions).
    public func declares(_ key: String) -> Bool { spec?.option(key) != nil }

    /// `declaredOption(key)`; debug builds trap on an undeclared key.
    private func option(_ key: String) -> Option? {
        do {
            return try declaredOption(key)
        } catch {
            assertionFailure(error.description)
            return nil
        }
    }

    /// The value of `key`, or its default, as a ConfigValue; nil when neither
    /// (an absent section reads as an empty one: all its defaults).
    public func child(_ key: String) -> ConfigValue? {
        let option = option(key)
        let childPath = path.isEmpty ? key : "\(path).\(key)"
        if let value = node[key] {
            return ConfigValue(node: value, path: childPath, type: option?.type, context: context)
        }
        return Self.defaultValue(of: option, path: childPath, mark: mark, context: context)
    }

    /// What an absent option reads as: its declared default, or an empty mapping for a section.
    private static func defaultValue(of option: Option?, path: String, mark: SourceMark, context: ConfigContext) -> ConfigValue? {
        if let text = option?.defaultValue, let parsed = try? YAMLParser.parse(text, file: "default of \(path)") {
            return ConfigValue(node: parsed, path: path, type: option?.type, context: context)
        }
        if case .section? = option?.type {
            return ConfigValue(node: ConfigNode(.mapping([]), mark: mark), path: path, type: option?.type, context: context)
        }
        return nil
    }

    /// The value of an option that has a default: what was written, else the default.
    private func defaulted<Value>(_ key: String, _ read: (ConfigValue) -> Value?) -> Value {
        let option = option(key)
        let childPath = path.isEmpty ? key : "\(path).\(key)"
        // A written value that does not read failed validation, which stops the load; the default stands in meanwhile.
        if let written = node[key], let value = read(ConfigValue(node: written, path: childPath, type: option?.type, context: context)) {
            return value
        }
        guard let fallback = Self.defaultValue(of: option, path: childPath, mark: mark, context: context), let value = read(fallback) else {
            preconditionFailure("'\(childPath)' has no usable default in its spec: read it with an optional getter")
        }
        return value
    }

    /// The value of an option without a default: what was written, else nil.
    private func optional<Value>(_ key: String, _ read: (ConfigValue) -> Value?) -> Value? {
        let option = option(key)
        assert(option?.defaultValue == nil, "'\(key)' of '\(path)' has a default (\(option?.defaultValue ?? "")): read it without `optional`")
        return child(key).flatMap(read)
    }

    // MARK: Typed getters for a member with a default (or a section)

    public func string(_ key: String) -> String { defaulted(key, \.stringValue) }
    public func int(_ key: String) -> Int { defaulted(key, \.intValue) }
    public func bool(_ key: String) -> Bool { defaulted(key, \.boolValue) }
    public func duration(_ key: String) -> Duration { defaulted(key, \.durationValue) }
    public func template(_ key: String) -> Template { defaulted(key, \.templateValue) }
    /// A list of strings; a single scalar reads as a list of one.
    public func strings(_ key: String) -> [String] { defaulted(key, \.stringList) }
    /// A list of templates; a single scalar reads as a list of one.
    public func templates(_ key: String) -> [Template] { defaulted(key, \.templateList) }
    /// A `.choice` option as the enum whose raw values are its words.
    public func choice<Choice: RawRepresentable>(_ key: String, as: Choice.Type = Choice.self) -> Choice where Choice.RawValue == String {
        defaulted(key) { $0.stringValue.flatMap(Choice.init(rawValue:)) }
    }
    /// A nested section; an absent one reads as one with all its defaults.
    public func section(_ key: String) -> ConfigValue { defaulted(key) { $0 } }

    // MARK: Typed getters for a member without a default: nil when absent

    public func optionalString(_ key: String) -> String? { optional(key, \.stringValue) }
    public func optionalBool(_ key: String) -> Bool? { optional(key, \.boolValue) }
    public func optionalDuration(_ key: String) -> Duration? { optional(key, \.durationValue) }
    public func optionalTemplate(_ key: String) -> Template? { optional(key, \.templateValue) }
    /// A list of strings; a single scalar reads as a list of one.
    public func optionalStrings(_ key: String) -> [String]? { optional(key, \.stringList) }
    /// A list of templates; a single scalar reads as a list of one.
    public func optionalTemplates(_ key: String) -> [Template]? { optional(key, \.templateList) }

    /// The elements of a list member, each validated against the element spec.
    public func list(_ key: String) -> [ConfigValue] { child(key)?.elements ?? [] }

    /// The members of a map member (`headers`, `env`, `handlers`), in file order.
    public func entries(_ key: String) -> [(key: String, value: ConfigValue)] { child(key)?.members ?? [] }

    // MARK: The value itself

    public var stringValue: String? { node.isNull ? nil : node.scalar }
    public var intValue: Int? { node.scalar.flatMap { Int($0) } }
    public var boolValue: Bool? { node.scalar.flatMap(OptionValidator.bool) }
    public var durationValue: Duration? { node.scalar.flatMap { Duration(configText: $0) } }
    public var templateValue: Template? { stringValue.flatMap { try? context.template($0) } }
    public var stringList: [String]? {
        if let elements = node.elements { return elements.compactMap(\.scalar) }
        return stringValue.map { [$0] }
    }
    public var templateList: [Template]? {
        stringList?.compactMap { try? context.template($0) }
    }
    /// The trimmed contents of the file this value names (a `*_file` option);
    /// for `check-config`, a placeholder when the file is not there yet (the validator warned).
    /// Read as every secret file is (`SecretFile`): never a named pipe, a device or a file others can read.
    public var fileContents: String? {
        guard let path = stringValue.map(context.resolve) else { return nil }
        guard let bytes = SecretFile(path: path).contents else {
            return context.missingSecretsAreWarnings ? "<the contents of \(path)>" : nil
        }
        return String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
    }
    public var elements: [ConfigValue] {
        (node.elements ?? []).enumerated().map { index, element in
            ConfigValue(node: element, path: "\(path)[\(index)]", type: elementType, context: context)
        }
    }
    public var members: [(key: String, value: ConfigValue)] {
        (node.entries ?? []).map { entry in
            (entry.key, ConfigValue(node: entry.value, path: "\(path).\(entry.key)", type: elementType, context: context))
        }
    }

    private var elementType: OptionType? {
        switch type {
        case .list(let element)?, .oneOrMany(let element)?, .map(let element)?: return element
        default: return nil
        }
    }

    /// The node as JSON (scalars typed the YAML way: plain `true`, `3`, `1.5`, `null`).
    public var json: JSONValue { Self.json(node) }

    // MARK: Reporting

    /// A problem with `key` (or with this value when nil), at the key's value or this node.
    public func error(_ key: String? = nil, _ message: String) -> ConfigErrors {
        guard let key else { return ConfigErrors(mark: mark, path: path, message: message) }
        let at = node[key]?.mark ?? mark
        return ConfigErrors(mark: at, path: path.isEmpty ? key : "\(path).\(key)", message: message)
    }

    private static func normalized(_ node: ConfigNode, spec: OptionSpec?) -> ConfigNode {
        guard let spec else { return node }
        if node.isNull { return ConfigNode(.mapping([]), mark: node.mark) }
        if let option = spec.scalarOption, node.scalar != nil || node.elements != nil {
            return ConfigNode(.mapping([ConfigNode.Entry(key: option, keyMark: node.mark, value: node)]), mark: node.mark)
        }
        return node
    }

    private static func json(_ node: ConfigNode) -> JSONValue {
        switch node.content {
        case .scalar(let text, let plain):
            guard plain else { return .string(text) }
            if node.isNull { return .null }
            if let bool = OptionValidator.bool(text) { return .bool(bool) }
            if let int = Int64(text) { return .int(int) }
            if let double = Double(text), text.contains(".") { return .double(double) }
            return .string(text)
        case .sequence(let elements):
            return .array(elements.map(json))
        case .mapping(let entries):
            var object = JSONObject()
            for entry in entries { object[entry.key] = json(entry.value) }
            return .object(object)
        }
    }
}
