extension StringProtocol {
    /// The text without the leading and trailing characters for which `isTrimmed` is true.
    public func trimming(while isTrimmed: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else {
            return ""
        }
        return String(self[first...last])
    }

    /// The text without leading and trailing white space, line breaks included.
    public func trimmingWhitespace() -> String { trimming(while: \.isWhitespace) }
}
