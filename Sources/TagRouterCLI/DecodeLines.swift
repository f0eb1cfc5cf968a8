import Glibc
import NDEF
import OrderedJSON

/// `decode --lines`: hex messages on stdin, one per line, each decoded on its own to
/// one JSON document per output line; a line that does not decode becomes
/// `{"line":N,"error":{…}}` and the run goes on.
///
/// Built for throughput (hundreds of thousands of lines a second): stdin is read in
/// large blocks and split at the byte level, hex is decoded from the bytes, and each
/// document is written straight into one reused buffer (no `JSONValue` tree per
/// line) that is written out in large chunks.
struct DecodeLines {
    let options: DecodeOptions
    private static let blockSize = 1 << 16

    func run() throws(CLIError) {
        var output = OutputChunks(pretty: options.pretty, flushAt: Self.blockSize)
        var pending: [UInt8] = []
        var block = [UInt8](repeating: 0, count: Self.blockSize)
        var number = 0
        while true {
            let count = block.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .runtime("cannot read stdin: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            try Self.withBytes(of: block) { (buffer) throws(CLIError) in
                var lineStart = 0
                let filled = UnsafeBufferPointer(rebasing: buffer[..<count])
                while let newline = Self.newline(in: filled, from: lineStart) {
                    number += 1
                    if pending.isEmpty {
                        try decodeLine(UnsafeBufferPointer(rebasing: filled[lineStart..<newline]), number: number, into: &output)
                    } else {
                        pending += filled[lineStart..<newline]
                        try Self.withBytes(of: pending) { (line) throws(CLIError) in try decodeLine(line, number: number, into: &output) }
                        pending.removeAll(keepingCapacity: true)
                    }
                    lineStart = newline + 1
                }
                pending += filled[lineStart...]
            }
        }
        if !pending.isEmpty {
            try Self.withBytes(of: pending) { (line) throws(CLIError) in try decodeLine(line, number: number + 1, into: &output) }
        }
        try output.flush()
    }

    /// `body` on the bytes of `array`, its error carried out as a Result: Swift 6.0 (Debian 13's) types
    /// a typed throw through withUnsafeBufferPointer's rethrow as `any Error`.
    private static func withBytes(of array: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) throws(CLIError) -> Void) throws(CLIError) {
        try array.withUnsafeBufferPointer { buffer in Result { () throws(CLIError) in try body(buffer) } }.get()
    }

    /// The position of the first `\n` at or after `start`: `memchr`, which looks at
    /// many bytes a step (a generic `firstIndex(of:)` took ~17 instructions a byte).
    private static func newline(in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < buffer.count, let base = buffer.baseAddress,
              let found = memchr(base + start, Int32(UInt8(ascii: "\n")), buffer.count - start) else { return nil }
        return UnsafeRawPointer(found) - UnsafeRawPointer(base)
    }

    private func decodeLine(_ line: UnsafeBufferPointer<UInt8>, number: Int, into output: inout OutputChunks) throws(CLIError) {
        let text = line[...].trimmingASCIIWhitespace()
        if text.isEmpty { return }
        guard let bytes = DecodeInput.hexBytes(utf8: text) else {
            return try output.append(options.errorLine(number, kind: "bad-hex", offset: 0, message: "the line is not hex"))
        }
        switch options.decoded(bytes) {
        case .success(let decoded): try output.appendObject { decoded.writeMembers(into: &$0) }
        case .failure(let failure): try output.append(options.errorLine(number, failure))
        }
    }
}

/// JSON lines collected in one buffer and written to stdout whenever it holds a chunk's worth.
private struct OutputChunks {
    private var writer: JSONWriter
    private let flushAt: Int

    init(pretty: Bool, flushAt: Int) {
        writer = JSONWriter(pretty: pretty, capacity: flushAt + flushAt / 4)
        self.flushAt = flushAt
    }

    mutating func append(_ value: JSONValue) throws(CLIError) {
        writer.write(value)
        try endLine()
    }

    /// An object written straight into the buffer: no `JSONValue` tree built and freed per line.
    mutating func appendObject(_ members: (inout JSONWriter.Members) -> Void) throws(CLIError) {
        writer.writeObject(members)
        try endLine()
    }

    private mutating func endLine() throws(CLIError) {
        writer.append(raw: UInt8(ascii: "\n"))
        if writer.count >= flushAt { try flush() }
    }

    mutating func flush() throws(CLIError) {
        try writer.withUnsafeBytes { (text) throws(CLIError) in
            var written = 0
            while written < text.count {
                let count = write(STDOUT_FILENO, text.baseAddress! + written, text.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw .runtime("cannot write to stdout: \(String(cString: strerror(errno)))")
                }
                written += count
            }
        }
        writer.clear()
    }
}
