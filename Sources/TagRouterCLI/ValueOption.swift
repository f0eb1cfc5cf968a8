import TagRouter

/// A command-line option with a typed value, declared once with its default:
/// `Arguments.value(of:)` gives the command a `Value` — the one given, else the
/// default — and the texts generated from the table (usage, `--help`, man page,
/// completion) show the value's placeholder or choices and that same default.
///
/// Three shapes, chosen by `Value`:
/// - `ValueOption<Duration>("--timeout", default: .seconds(30), …)`: absent, the default;
/// - `ValueOption<String?>("--config", whenAbsent: "…", …)`: absent, nil (and help says what then happens);
/// - `ValueOption<[String]>("--device", …)`: repeatable, every value in order.
struct ValueOption<Value: Sendable>: DeclaredOption {
    let declaration: CommandOption
    /// The command's value from the texts given for the option, in command-line order.
    private let read: @Sendable (_ texts: [String]) -> Result<Value, CLIError>

    /// An option that may be left out (nil); `whenAbsent` says what the command then does, for help.
    init<Single: OptionValue>(
        _ names: String..., placeholder: String? = nil, whenAbsent: String? = nil, help: String, group: String = "Options"
    ) where Value == Single? {
        let shape = OptionValueShape(Single.self, placeholder: placeholder, shownDefault: whenAbsent, repeats: false)
        declaration = CommandOption(names: names, value: shape, help: help, group: group)
        read = { [name = names[0]] texts in
            guard let text = texts.last else { return .success(nil) }
            return Self.parse(text, of: name, as: Single.self, given: texts).map { .some($0) }
        }
    }

    /// An option given any number of times; the command gets every value, in order.
    init<Element: OptionValue>(
        _ names: String..., placeholder: String? = nil, whenAbsent: String? = nil, help: String, group: String = "Options"
    ) where Value == [Element] {
        let shape = OptionValueShape(Element.self, placeholder: placeholder, shownDefault: whenAbsent, repeats: true)
        declaration = CommandOption(names: names, value: shape, help: help, group: group)
        read = { [name = names[0]] texts in
            var values: [Element] = []
            for text in texts {
                switch Self.parse(text, of: name, as: Element.self, given: [text]) {
                case .success(let value): values.append(value)
                case .failure(let error): return .failure(error)
                }
            }
            return .success(values)
        }
    }

    private init(declaration: CommandOption, read: @escaping @Sendable ([String]) -> Result<Value, CLIError>) {
        self.declaration = declaration
        self.read = read
    }

    /// The command's value from `texts`, or a usage error naming the option.
    func value(from texts: [String]) throws(CLIError) -> Value {
        try read(texts).get()
    }

    /// `text` as a `Single`; an option given twice with different values is refused
    /// (which one was meant?), and a bad value named with the option, the values
    /// it takes and, for a near miss of one of them, that one.
    private static func parse<Single: OptionValue>(_ text: String, of name: String, as type: Single.Type, given texts: [String]) -> Result<Single, CLIError> {
        if Set(texts).count > 1 {
            return .failure(.usage("\(name) is given more than once (" + texts.map { "'\($0)'" }.joined(separator: ", then ") + ")"))
        }
        if let value = Single(argument: text) { return .success(value) }
        if let problem = Single.problem(with: text) { return .failure(.usage("\(name): \(problem)")) }
        var message = "\(name) takes \(Single.expectation), not '\(text)'"
        if let near = DidYouMean.suggestion(for: text, among: Single.choices) { message += " (did you mean \(near)?)" }
        return .failure(.usage(message))
    }
}

extension ValueOption where Value: OptionValue {
    /// An option that has a default; help shows it as the value's own text.
    init(_ names: String..., placeholder: String? = nil, default defaultValue: Value, help: String, group: String = "Options") {
        let read: @Sendable ([String]) -> Result<Value, CLIError> = { [name = names[0]] texts in
            guard let text = texts.last else { return .success(defaultValue) }
            return Self.parse(text, of: name, as: Value.self, given: texts)
        }
        // What the command gets when the option is left out, as help shows it.
        let absent = try? read([]).get()
        let shape = OptionValueShape(Value.self, placeholder: placeholder, shownDefault: defaultValue.argumentText, repeats: false, absent: absent)
        self.init(declaration: CommandOption(names: names, value: shape, help: help, group: group), read: read)
    }
}

/// What an option's value is, for the texts generated from the table: its
/// placeholder, its choices, the default help shows, whether it repeats.
struct OptionValueShape: Sendable {
    /// `FILE`, `DURATION`: the value's name when its choices are not listed in its place.
    let placeholder: String
    /// Every value the option takes, when they are few; empty when the value is free.
    let choices: [String]
    /// The default help shows: the default value's text, or what leaving the option out means.
    let shownDefault: String?
    /// True when the option may be given several times, each value kept.
    let repeats: Bool
    /// What a value must be, as an error says it.
    let expectation: String

    /// The text of the value the command gets when the option is left out; nil when it gets none (nil, no values).
    let absentValueText: String?
    /// False when that value's text reads back as another value: help would show a default the command does not use.
    let defaultReadsBack: Bool
    /// True when a text is a value of the option's type. Free text reads anything, so it says false.
    let reads: @Sendable (String) -> Bool

    init<Value: OptionValue>(_ type: Value.Type, placeholder: String?, shownDefault: String?, repeats: Bool, absent: Value? = nil) {
        self.placeholder = placeholder ?? Value.placeholder
        choices = Value.choices
        self.shownDefault = shownDefault
        self.repeats = repeats
        expectation = Value.expectation
        absentValueText = absent?.argumentText
        defaultReadsBack = absent.map { Value(argument: $0.argumentText) == $0 } ?? true
        reads = { text in Value.self != String.self && Value(argument: text) != nil }
    }

    /// The longest list of choices shown in place of the placeholder (`--if-busy exit|wait`).
    static let inlineChoicesLimit = 40

    /// True when the label lists the choices (`exit|wait`) rather than the placeholder.
    var showsChoices: Bool {
        !choices.isEmpty && choices.joined(separator: "|").count <= Self.inlineChoicesLimit
    }

    /// The value as a label shows it: `exit|wait`, or the placeholder.
    var label: String { showsChoices ? choices.joined(separator: "|") : placeholder }

    /// True when a file name is what the user types here (the completion offers files).
    var isPath: Bool { ["FILE", "PATH", "DIR", "SOCKET"].contains(placeholder) }
}
