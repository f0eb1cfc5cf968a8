/// What arrives on one output pipe: keeps the last bytes and, when asked, cuts
/// the stream into lines (without the `\n`, a trailing `\r` removed).
struct OutputCollector {
    private(set) var tail: [UInt8] = []
    private let tailLimit: Int
    private let lineLimit: Int
    private var line: [UInt8] = []
    private var discardingRestOfLine = false
    private let onLine: ((String) -> Void)?

    init(tailLimit: Int, lineLimit: Int, onLine: ((String) -> Void)?) {
        self.tailLimit = tailLimit
        self.lineLimit = lineLimit
        self.onLine = onLine
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        tail.append(contentsOf: bytes)
        if tail.count > tailLimit { tail.removeFirst(tail.count - tailLimit) }
        guard onLine != nil else { return }
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if !discardingRestOfLine { emitLine() }
                discardingRestOfLine = false
                line.removeAll(keepingCapacity: true)
            } else if !discardingRestOfLine {
                line.append(byte)
                if line.count >= lineLimit {
                    emitLine()
                    discardingRestOfLine = true
                    line.removeAll(keepingCapacity: true)
                }
            }
        }
    }

    /// A last line without its `\n` still counts.
    mutating func finish() {
        if !line.isEmpty { emitLine() }
        line.removeAll()
    }

    private func emitLine() {
        var bytes = line[...]
        if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
        onLine?(String(decoding: bytes, as: UTF8.self))
    }
}
