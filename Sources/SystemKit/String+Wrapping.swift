extension String {
    /// The text's words on lines of at most `width` characters (a longer word keeps a line of its own),
    /// joined by newlines; the text's own line breaks are kept.
    public func wrapped(width: Int) -> String {
        split(separator: "\n", omittingEmptySubsequences: false).map { paragraph in
            var lines: [String] = []
            var line = ""
            for word in paragraph.split(separator: " ") {
                if !line.isEmpty, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = ""
                }
                line += (line.isEmpty ? "" : " ") + word
            }
            return (lines + [line]).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
