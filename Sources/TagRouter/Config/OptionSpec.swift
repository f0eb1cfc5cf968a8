/// The declared options of one config section or action: written once, it
/// validates the YAML (types, unknown keys with "did you mean"), supplies the
/// defaults, feeds `check-config` and generates the README's reference table.
public struct OptionSpec: Sendable {
    /// One line saying what the section or action is for.
    public var summary: String
    public var options: [Option]
    /// The option a lone scalar sets (`- open: "{{uri}}"` sets `uri`); nil when
    /// the section must be a mapping. A bare `- name` or `name:` always means "all defaults".
    public var scalarOption: String?

    public init(_ summary: String, scalarOption: String? = nil, _ options: [Option]) {
        self.summary = summary
        self.scalarOption = scalarOption
        self.options = options
    }

    public func option(_ name: String) -> Option? { options.first { $0.name == name } }

    /// This spec with more options appended (the router adds `queue`, `retry`, `spool` to every action).
    public func adding(_ more: [Option]) -> OptionSpec {
        OptionSpec(summary, scalarOption: scalarOption, options + more.filter { option($0.name) == nil })
    }
}

/// One key of a section: its type, its default (as YAML text, shown verbatim in
/// the docs), whether it must be given, and what it means.
public struct Option: Sendable {
    public var name: String
    public var type: OptionType
    /// The value used when the key is absent, written as YAML (`"1"`, `"[http, https]"`, `"{{json}}"`).
    public var defaultValue: String?
    public var required: Bool
    public var meaning: String

    public init(_ name: String, _ type: OptionType, default defaultValue: String? = nil, required: Bool = false, _ meaning: String) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.required = required
        self.meaning = meaning
    }
}

/// What an option's value must be.
public indirect enum OptionType: Sendable {
    /// Any scalar, taken as text.
    case string
    /// A whole number, optionally within a range.
    case int(ClosedRange<Int>? = nil)
    case bool
    /// `500ms`, `5s`, `2m`, `1h`, or combined (`1m30s`); `0` is allowed.
    case duration
    /// A `{{variable | filter}}` template over the event, parsed at load.
    case template
    /// One of the listed words.
    case choice([String])
    /// A path to a file whose contents (trimmed) are the value: the `*_file` secret keys.
    /// Relative paths are relative to the config file; the file is read at load.
    case secretFile
    /// A list whose elements all have the element type.
    case list(OptionType)
    /// A single value or a list of them (match conditions: a list means any of).
    case oneOrMany(OptionType)
    /// A mapping from names the user chooses to values of one type (`headers`, `env`).
    case map(OptionType)
    /// A nested section with its own options.
    case section(OptionSpec)
    /// Anything: checked by the code that reads it.
    case any

    /// How the type reads in the reference table.
    public var displayName: String {
        switch self {
        case .string: return "string"
        case .int(let range?): return "integer \(range.lowerBound)…\(range.upperBound)"
        case .int(nil): return "integer"
        case .bool: return "boolean"
        case .duration: return "duration"
        case .template: return "template"
        case .choice(let words): return words.joined(separator: " | ")
        case .secretFile: return "file path"
        case .list(.section): return "list of mappings"
        case .list(let element): return "list of \(element.displayName)"
        case .oneOrMany(let element): return "\(element.displayName) or list"
        case .map(let value): return "map of \(value.displayName)"
        case .section: return "mapping"
        case .any: return "any"
        }
    }
}
