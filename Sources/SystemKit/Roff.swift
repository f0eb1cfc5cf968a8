/// Text for a man(7) page, written so that roff prints it as given: the escaping
/// tagrouter(1) (`tagrouter help --man`) and tagrouter.yaml(5) (`tagrouter
/// check-config --man`) share.
public enum Roff {
    /// One input line of plain text: backslashes and hyphens escaped, other than
    /// ASCII as `\[uXXXX]`, a leading `.` or `'` (a roff request) defused, and an
    /// empty line (which roff would print as a blank one inside `.nf`) as `.sp`.
    public static func line(_ text: some StringProtocol) -> String {
        let escaped = characters(text)
        return escaped.isEmpty ? ".sp" : defused(escaped)
    }

    /// One input line from text with Markdown code spans (`` `key: value` ``), as
    /// the option specs write their meanings: the spans in bold, without their
    /// backticks. An unpaired backtick stays as it is.
    public static func codeSpans(_ text: some StringProtocol) -> String {
        let parts = text.split(separator: "`", omittingEmptySubsequences: false)
        var line = ""
        for (index, part) in parts.enumerated() {
            if index % 2 == 0 {
                line += characters(part)
            } else if index == parts.count - 1 {
                line += "`" + characters(part)
            } else {
                line += "\\fB" + characters(part) + "\\fR"
            }
        }
        return line.isEmpty ? ".sp" : defused(line)
    }

    /// `text` with every character roff would act on escaped, a line break as a
    /// space; the line start is the caller's (`line`, `codeSpans`).
    public static func characters(_ text: some StringProtocol) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\e"
            case "-": escaped += "\\-"
            case "\n": escaped += " "
            case _ where !scalar.isASCII:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A line starting with `.` or `'` is a request to roff; `\&` (a zero-width
    /// character) in front makes it text.
    private static func defused(_ line: String) -> String {
        line.first == "." || line.first == "'" ? "\\&" + line : line
    }
}
