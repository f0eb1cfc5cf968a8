// libFuzzer entry point for the control socket's request lines: the input is what a
// client sends after connecting (any bytes, any lines), served by a real ControlSession
// over a socket pair, with a daemon observer and a reader that answers every job at once.
// Every line the daemon sends back must be one JSON object, the first the hello.
// Built by scripts/fuzz.sh with the DaemonControl sources; not part of Package.swift.
@preconcurrency import Glibc
import OrderedJSON
import TagCore
import TagRouter

/// A reader that refuses every job at once (no tag), so a `write` or `read` never waits.
struct ImpatientReader: TagJobRunner {
    func submit(_ job: TagJob, reader: String?, answer: @escaping @Sendable (TagJobResult) -> Void) -> TagJobHandle {
        answer(.refused(TagJobRefusal(.noTag, "no tag (fuzz)")))
        return TagJobHandle(cancel: {})
    }
}

let context = ControlSession.Context(
    observer: DaemonObserver(), policy: PeerPolicy(), limits: ControlLimits(connections: 4, idle: .seconds(5)), jobs: ImpatientReader(),
    reload: { .rejected(problems: ["tagrouter.yaml:1:1: fuzz"]) }, tagNames: nil)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var ends: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else { fatalError("socketpair: \(errno)") }
    var size = size
    var buffer = 1 << 20
    setsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &buffer, socklen_t(MemoryLayout<Int>.size))
    setsockopt(ends[1], SOL_SOCKET, SO_RCVBUF, &buffer, socklen_t(MemoryLayout<Int>.size))
    size = min(size, 64 * 1024)
    precondition(write(ends[0], data, size) == size, "the socket pair took less than the input")
    shutdown(ends[0], Int32(SHUT_WR))  // the client has said all it says

    ControlSession(socket: UnixSocket(fd: ends[1]), context: context, closing: { false }).serve()
    close(ends[1])

    var reply: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
        guard count > 0 else { break }
        reply += chunk.prefix(count)
    }
    close(ends[0])
    let lines = reply.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
    precondition(reply.last == UInt8(ascii: "\n"), "the daemon's last line has no newline")
    for (index, line) in lines.enumerated() {
        guard let value = try? JSONValue.parse(bytes: Array(line)), case .object = value else {
            preconditionFailure("line \(index) is not a JSON object: \(String(decoding: line, as: UTF8.self).prefix(200))")
        }
        if index == 0 { precondition(value["server"] == "tagrouter", "the first line is not the hello") }
    }
    return 0
}
