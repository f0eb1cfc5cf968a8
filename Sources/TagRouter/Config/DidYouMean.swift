/// Suggests the closest known name for a misspelt key.
public enum DidYouMean {
    /// The candidate within a small edit distance of `word`, if any.
    public static func suggestion(for word: String, among candidates: [String]) -> String? {
        let limit = max(1, min(3, word.count / 3))
        let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= limit else { return nil }
        return best.0
    }

    /// The message for an unknown key: `unknown key 'qso' (did you mean 'qos'?)`.
    static func unknownKey(_ key: String, among candidates: [String]) -> String {
        if let suggestion = suggestion(for: key, among: candidates) {
            return "unknown key '\(key)' (did you mean '\(suggestion)'?)"
        }
        return "unknown key '\(key)'; expected one of: " + candidates.joined(separator: ", ")
    }

    /// Levenshtein distance with adjacent transpositions counted as one edit.
    static func distance(_ lhs: String, _ rhs: String) -> Int {
        let a = Array(lhs), b = Array(rhs)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
