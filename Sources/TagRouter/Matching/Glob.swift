/// A shell-style pattern: `*` matches any run of characters (also none), `?`
/// exactly one; everything else matches itself. Case-sensitive.
public struct Glob: Sendable, Hashable, CustomStringConvertible {
    /// How the pattern is matched: most patterns need no backtracking.
    private enum Shape: Sendable, Hashable {
        case literal
        case prefix([UInt8])
        case general([Character])
    }

    public let pattern: String
    private let shape: Shape

    public init(_ pattern: String) {
        self.pattern = pattern
        let wildcards = pattern.filter { $0 == "*" || $0 == "?" }
        if wildcards.isEmpty {
            shape = .literal
        } else if wildcards == "*", pattern.hasSuffix("*") {
            shape = .prefix(Array(pattern.dropLast().utf8))
        } else {
            shape = .general(Array(pattern))
        }
    }

    public var description: String { pattern }

    /// The bytes every text this glob matches starts with, for patterns matched
    /// byte by byte (no wildcard, or one `*` at the end); nil for the others,
    /// which compare characters (canonically equivalent spellings match there).
    var bytePrefix: [UInt8]? {
        switch shape {
        case .literal: return Array(pattern.utf8)
        case .prefix(let prefix): return prefix
        case .general: return nil
        }
    }

    /// True when the whole of `text` matches.
    public func matches(_ text: String) -> Bool {
        switch shape {
        case .literal: return text.utf8.elementsEqual(pattern.utf8)
        case .prefix(let prefix):
            let fast = text.utf8.withContiguousStorageIfAvailable { bytes in
                guard bytes.count >= prefix.count else { return false }
                for index in prefix.indices where bytes[index] != prefix[index] { return false }
                return true
            }
            return fast ?? text.utf8.starts(with: prefix)
        case .general(let characters): return Self.matches(Array(text), characters)
        }
    }

    private static func matches(_ subject: [Character], _ characters: [Character]) -> Bool {
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
