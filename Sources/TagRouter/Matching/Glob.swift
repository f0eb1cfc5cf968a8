/// A shell-style pattern: `*` matches any run of characters (also none), `?`
/// exactly one; everything else matches itself. Case-sensitive.
public struct Glob: Sendable, Hashable, CustomStringConvertible {
    public let pattern: String
    private let characters: [Character]

    public init(_ pattern: String) {
        self.pattern = pattern
        characters = Array(pattern)
    }

    public var description: String { pattern }

    /// True when the whole of `text` matches.
    public func matches(_ text: String) -> Bool {
        let subject = Array(text)
        var p = 0, s = 0
        var star: Int?
        var resume = 0
        while s < subject.count {
            if p < characters.count, characters[p] == "?" || characters[p] == subject[s] && characters[p] != "*" {
                p += 1
                s += 1
            } else if p < characters.count, characters[p] == "*" {
                star = p
                resume = s
                p += 1
            } else if let starAt = star {
                p = starAt + 1
                resume += 1
                s = resume
            } else {
                return false
            }
        }
        while p < characters.count, characters[p] == "*" { p += 1 }
        return p == characters.count
    }
}
