/// The PN532's host frames on the UART: `00 00 FF LEN LCS TFI PD… DCS 00`
/// (normal) or `00 00 FF FF FF LENM LENL LCS TFI PD… DCS 00` (extended), plus
/// the ACK `00 00 FF 00 FF 00`, the NACK `00 00 FF FF 00 00` and the
/// application-level error frame `00 00 FF 01 FF 7F 81 00`.
public enum PN532Frame {
    /// Frame identifier of host → PN532 frames.
    public static let hostToChip: UInt8 = 0xD4
    /// Frame identifier of PN532 → host frames.
    public static let chipToHost: UInt8 = 0xD5

    public static let ack: [UInt8] = [0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00]
    public static let nack: [UInt8] = [0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00]
    /// What the chip answers to a command it does not know or whose parameters are wrong.
    public static let applicationError: [UInt8] = [0x00, 0x00, 0xFF, 0x01, 0xFF, 0x7F, 0x81, 0x00]

    /// Frames `payload` (command or response code first) behind `tfi`; extended when
    /// TFI + payload is longer than 255 bytes.
    public static func encode(tfi: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let body = [tfi] + payload
        let checksum = UInt8(truncatingIfNeeded: 0x100 - Int(body.reduce(UInt8(0), &+)))
        let header: [UInt8]
        if body.count <= 0xFF {
            let length = UInt8(body.count)
            header = [0x00, 0x00, 0xFF, length, 0 &- length]
        } else {
            let high = UInt8(body.count >> 8), low = UInt8(body.count & 0xFF)
            header = [0x00, 0x00, 0xFF, 0xFF, 0xFF, high, low, 0 &- high &- low]
        }
        return header + body + [checksum, 0x00]
    }
}

/// One frame as `PN532FrameDecoder` recognised it.
public enum DecodedFrame: Equatable, Sendable {
    /// An information frame: the command (or response) code and its data, TFI removed.
    case command([UInt8])
    /// An ACK: the command was received, or (from the host, while a command runs) abort it.
    case ack
    /// A NACK: send the last frame again.
    case nack
    /// The chip's application-level error frame (unknown command, bad parameters).
    case applicationError
    /// A frame that failed a check; the chip answers it with a NACK.
    case malformed(String)
}

/// Turns a byte stream into frames: the host's (TFI D4) on the chip's side, the
/// chip's (TFI D5) on a host's. Bytes between frames (the wake-up preamble
/// `55 55 00 00 …`, postambles, noise) are skipped; a frame split across reads
/// is held until complete. Never traps on any input.
public struct PN532FrameDecoder: Sendable {
    private var buffer: [UInt8] = []
    private let frameIdentifier: UInt8

    /// A decoder for frames carrying `frameIdentifier` (the host's D4 unless told otherwise).
    public init(frameIdentifier: UInt8 = PN532Frame.hostToChip) {
        self.frameIdentifier = frameIdentifier
    }

    /// Adds `bytes` and returns every frame now complete, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [DecodedFrame] {
        buffer.append(contentsOf: bytes)
        var frames: [DecodedFrame] = []
        while let frame = nextFrame() { frames.append(frame) }
        return frames
    }

    /// Bytes held while waiting for the rest of a frame.
    public var pendingByteCount: Int { buffer.count }

    private enum Step {
        case frame(DecodedFrame, consumed: Int)
        case needMore
    }

    private mutating func nextFrame() -> DecodedFrame? {
        while true {
            guard let start = startCodeIndex() else {
                // Keep a trailing 0x00: it may be the first half of a start code.
                buffer = buffer.last == 0x00 ? [0x00] : []
                return nil
            }
            buffer.removeFirst(start)
            switch decodeAtStart() {
            case .needMore:
                return nil
            case .frame(let frame, let consumed):
                buffer.removeFirst(consumed)
                return frame
            }
        }
    }

    private func startCodeIndex() -> Int? {
        guard buffer.count >= 2 else { return nil }
        return (0..<(buffer.count - 1)).first { buffer[$0] == 0x00 && buffer[$0 + 1] == 0xFF }
    }

    /// Decodes the frame whose start code `00 FF` begins the buffer.
    private func decodeAtStart() -> Step {
        guard buffer.count >= 4 else { return .needMore }
        switch (buffer[2], buffer[3]) {
        case (0x00, 0xFF): return .frame(.ack, consumed: 4)
        case (0xFF, 0x00): return .frame(.nack, consumed: 4)
        case (0x01, 0xFF):
            guard buffer.count >= 6 else { return .needMore }
            return buffer[4] == 0x7F && buffer[5] == 0x81
                ? .frame(.applicationError, consumed: 6) : .frame(.malformed("malformed error frame"), consumed: 2)
        case (0xFF, 0xFF):
            guard buffer.count >= 7 else { return .needMore }
            guard (Int(buffer[4]) + Int(buffer[5]) + Int(buffer[6])) & 0xFF == 0 else {
                return .frame(.malformed("extended frame length checksum mismatch"), consumed: 2)
            }
            return body(length: Int(buffer[4]) << 8 | Int(buffer[5]), at: 7)
        case (let length, let checksum):
            guard length != 0, (Int(length) + Int(checksum)) & 0xFF == 0 else {
                return .frame(.malformed("length checksum mismatch"), consumed: 2)
            }
            return body(length: Int(length), at: 4)
        }
    }

    private func body(length: Int, at offset: Int) -> Step {
        guard buffer.count >= offset + length + 1 else { return .needMore }
        let data = buffer[offset..<(offset + length)]
        let sum = data.reduce(UInt8(0), &+) &+ buffer[offset + length]
        let consumed = offset + length + 1
        guard sum == 0 else { return .frame(.malformed("data checksum mismatch"), consumed: consumed) }
        guard data.first == frameIdentifier, data.count >= 2 else {
            let expected = String(frameIdentifier, radix: 16, uppercase: true)
            return .frame(.malformed("frame identifier is not \(expected) or the frame has no code"), consumed: consumed)
        }
        return .frame(.command(Array(data.dropFirst())), consumed: consumed)
    }
}
