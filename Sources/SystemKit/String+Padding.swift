extension String {
    /// The text with `pad` put before it until it is `length` characters long; longer text is left whole.
    /// `String(7).leftPadded(toLength: 2, with: "0")` is "07".
    public func leftPadded(toLength length: Int, with pad: Character = " ") -> String {
        String(repeating: pad, count: max(0, length - count)) + self
    }

    /// The text with `pad` put after it until it is `length` characters long; longer text is left whole.
    public func rightPadded(toLength length: Int, with pad: Character = " ") -> String {
        self + String(repeating: pad, count: max(0, length - count))
    }
}
