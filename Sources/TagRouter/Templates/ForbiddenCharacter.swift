/// A character that a value rendered from a tag must not carry into where it
/// goes (an MQTT topic, an HTTP header, a URL, an argv element): which one and
/// where, so the refusal can name it.
///
/// `description` reads `a control character U+000A at character 4` (counted in
/// Unicode scalars from 1).
public struct ForbiddenCharacter: Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with it: `a control character`, `a NUL character`…
    public var kind: String
    public var scalar: Unicode.Scalar
    /// Position in the value, in Unicode scalars, from 1.
    public var position: Int

    /// The first scalar of `text` that `refusal` names a kind for, or nil.
    public static func first(in text: String, _ refusal: (Unicode.Scalar) -> String?) -> ForbiddenCharacter? {
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if let kind = refusal(scalar) { return ForbiddenCharacter(kind: kind, scalar: scalar, position: index + 1) }
        }
        return nil
    }

    /// NUL, the C0 controls (line feed, escape…), DEL and the C1 controls (U+0085 next line…).
    public static func control(_ scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0: return "a NUL character"
        case 0x01...0x1F, 0x7F...0x9F: return "a control character"
        default: return nil
        }
    }

    /// Only NUL, which C strings (argv, the environment) cannot hold: it would cut the value short.
    public static func nul(_ scalar: Unicode.Scalar) -> String? {
        scalar.value == 0 ? "a NUL character" : nil
    }

    /// `U+000A`.
    public static func code(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// `text` in double quotes for a log line: controls written as `\u{A}`, at most 200 scalars.
    public static func quoted(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars.prefix(200) {
            if control(scalar) == nil {
                quoted.unicodeScalars.append(scalar)
            } else {
                quoted += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
        }
        return quoted + (text.unicodeScalars.count > 200 ? "…\"" : "\"")
    }

    public var description: String { "\(kind) \(Self.code(scalar)) at character \(position)" }
}
