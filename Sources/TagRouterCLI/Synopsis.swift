/// One form of a command's usage line (`tagrouter decode --file PATH [--raw]`), made
/// of the command's declared options, so an option's name and the label of its value
/// are written once, in the declaration. A command without forms of its own has
/// one: every option of its table, each optional, in table order.
struct Synopsis: Sendable {
    /// A piece of the line.
    indirect enum Part: Sendable {
        /// An option: `--timeout DURATION`; a repeatable one ends in `…`.
        case declared(CommandOption)
        /// A word that is not an option: a positional (`HEX`), a literal (`learn`, `-`).
        case word(String)
        /// `[…]`: may be left out.
        case bracketed([Part])
        /// `(a | b)`, or `[a | b]` as the only part of brackets: one of these.
        case alternatives([[Part]])
        /// Stands for several options the text names together: `RECORD…` for the record options.
        case summarized(String, [CommandOption])

        static func option(_ option: any DeclaredOption) -> Part { .declared(option.declaration) }
        static func optional(_ option: any DeclaredOption) -> Part { .bracketed([.option(option)]) }
        static func optional(_ parts: Part...) -> Part { .bracketed(parts) }
        static func either(_ alternatives: [Part]...) -> Part { .alternatives(alternatives) }

        var text: String { text(markingRepeats: true) }

        /// The part as the line shows it; a repeatable option ends in `…`, or, first in
        /// brackets, the brackets do: `[--device CONNSTRING [--name NAME]]…`.
        private func text(markingRepeats: Bool) -> String {
            switch self {
            case .declared(let option): return option.label + (markingRepeats && option.value?.repeats == true ? "…" : "")
            case .word(let word), .summarized(let word, _): return word
            case .bracketed(let parts):
                if parts.count == 1, case .alternatives(let alternatives) = parts[0] { return "[" + Self.choice(alternatives) + "]" }
                guard case .declared(let first)? = parts.first, first.value?.repeats == true else {
                    return "[" + parts.map { $0.text(markingRepeats: markingRepeats) }.joined(separator: " ") + "]"
                }
                return "[" + parts.map { $0.text(markingRepeats: false) }.joined(separator: " ") + "]" + (markingRepeats ? "…" : "")
            case .alternatives(let alternatives): return "(" + Self.choice(alternatives) + ")"
            }
        }

        /// `a | b c`: alternatives, without the brackets or parentheses around them.
        private static func choice(_ alternatives: [[Part]]) -> String {
            alternatives.map { $0.map(\.text).joined(separator: " ") }.joined(separator: " | ")
        }

        /// Every option this part names, summarized ones included.
        var options: [CommandOption] {
            switch self {
            case .declared(let option): return [option]
            case .word: return []
            case .summarized(_, let options): return options
            case .bracketed(let parts): return parts.flatMap(\.options)
            case .alternatives(let alternatives): return alternatives.flatMap { $0.flatMap(\.options) }
            }
        }
    }

    let parts: [Part]

    init(_ parts: Part...) { self.parts = parts }

    init(parts: [Part]) { self.parts = parts }

    /// The one form of a command that declares none: each of `options`, optional, in order.
    static func every(_ options: [any DeclaredOption]) -> Synopsis {
        Synopsis(parts: options.map { .optional($0) })
    }

    /// The widest a usage line is made before it continues on the next line.
    static let width = 100

    /// The usage lines of `program` (`tagrouter watch`): the first after `Usage: `, the
    /// other forms under it; a form too wide continues under its first part.
    static func usage(of program: String, _ forms: [Synopsis]) -> String {
        let lead = "Usage: "
        return forms.enumerated().flatMap { index, form in
            let start = (index == 0 ? lead : String(repeating: " ", count: lead.count)) + program
            var lines = [start]
            for part in form.parts.map(\.text) {
                if lines[lines.count - 1].count + 1 + part.count > width, lines[lines.count - 1].count > start.count {
                    lines.append(String(repeating: " ", count: start.count))
                }
                lines[lines.count - 1] += " " + part
            }
            return lines
        }.joined(separator: "\n")
    }
}
