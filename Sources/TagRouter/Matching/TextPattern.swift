import TagCore

/// One accepted value of a match condition: a glob, a regular expression
/// (Swift `Regex`, searched anywhere in the text), or a tag UID (compared by bytes,
/// so any spelling matches).
enum TextPattern: Sendable, CustomStringConvertible {
    case glob(Glob)
    case regex(SendableRegex)
    case uid(TagUID)

    func matches(_ text: String) -> Bool {
        switch self {
        case .glob(let glob): return glob.matches(text)
        case .regex(let regex): return regex.matches(text)
        case .uid(let uid): return TagUID(text)?.bytes == uid.bytes
        }
    }

    /// Matches a tag's UID: by bytes for a UID pattern, else on its hex form.
    func matches(uid: TagUID) -> Bool {
        if case .uid(let wanted) = self { return wanted.bytes == uid.bytes }
        return matches(uid.hex)
    }

    var description: String {
        switch self {
        case .glob(let glob): return glob.pattern
        case .regex(let regex): return "/\(regex.source)/"
        case .uid(let uid): return uid.hex
        }
    }
}

/// A compiled `Regex` with its source text. `Regex` holds no shared mutable
/// state once built, but the standard library does not mark it `Sendable`.
///
/// A class, so `TextPattern` has a layout known at compile time: `Regex` comes
/// from a resilient library, and holding it inline made every copy of every
/// pattern — glob or not — go through runtime value witnesses (a third of the
/// router's time through 100 routes).
final class SendableRegex: @unchecked Sendable {
    let source: String
    private let regex: Regex<AnyRegexOutput>

    init(_ source: String) throws {
        self.source = source
        regex = try Regex(source)
    }

    func matches(_ text: String) -> Bool {
        (try? regex.firstMatch(in: text)) != nil
    }
}
