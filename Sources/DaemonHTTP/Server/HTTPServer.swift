import CMicroHTTPD
@preconcurrency import Glibc
import Synchronization

/// libmicrohttpd (loaded by `init`) serving one listening socket: one thread per connection,
/// each request answered by `handle` on that thread. Streams get their own
/// blocking reads; `stop` ends them and joins every thread. No kind of client
/// can take every connection: live-page streams are capped (`streamLimit`, then
/// 503), connections that send no request are shut down past `ConnectionGuard`'s
/// limits, and the rest of `connectionLimit` stays free for `/metrics`.
final class HTTPServer: Sendable {
    /// The most connections served at once; one thread each.
    static let connectionLimit: UInt32 = 64
    /// The most live-page event streams open at once (each holds a connection while the page is open).
    static let streamLimit = 16
    /// The most connections waiting for a request (headers not complete, or idle between requests), and from one address.
    static let waitingLimit = 32
    static let waitingPerAddress = 16
    /// Seconds a connection is kept without any byte going either way.
    static let idleTimeout: UInt32 = 30
    /// Bytes of memory for one request (its headers); more is answered 431.
    static let requestMemory = 32 * 1024

    private let library: MicroHTTPD
    private let handle: @Sendable (HTTPRequest) -> HTTPReply
    private let daemon = Mutex<RunningDaemon?>(nil)
    fileprivate let connections: ConnectionGuard
    private let load: ListenerLoad
    private let streams = Mutex<(open: [ObjectIdentifier: any ResponseStream], stopping: Bool)>(([:], false))

    /// Loads libmicrohttpd, if no server did yet; fails when it is not installed. `load` counts what the server turns away.
    init(handle: @escaping @Sendable (HTTPRequest) -> HTTPReply, load: ListenerLoad) throws(HTTPError) {
        switch MicroHTTPD.shared {
        case .success(let library): self.library = library
        case .failure(let unavailable): throw HTTPError("cannot serve HTTP: \(unavailable)")
        }
        self.handle = handle
        self.load = load
        connections = ConnectionGuard(waitingLimit: Self.waitingLimit, waitingPerAddress: Self.waitingPerAddress, load: load)
    }

    /// Starts serving `socket`, which the server then owns (and closes on `stop`).
    func start(_ socket: ListeningSocket) throws(HTTPError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let started = tagrouter_mhd_start(
            library.startDaemon, socket.fd, Self.connectionLimit, Self.idleTimeout, Self.requestMemory,
            accessHandler, connectionNotifier, requestCompleted, context) else {
            throw HTTPError("cannot serve HTTP on \(socket.address): libmicrohttpd did not start")
        }
        daemon.withLock { $0 = RunningDaemon(pointer: started) }
    }

    /// Ends every open stream, stops accepting, and joins the connection threads.
    func stop() {
        let open = streams.withLock { state in
            state.stopping = true
            return Array(state.open.values)
        }
        for stream in open { stream.finish() }
        if let running = daemon.withLock({ state in defer { state = nil }; return state }) { library.stopDaemon(running.pointer) }
    }

    /// Answers the request whose headers are in, or keeps `body` (libmicrohttpd's pointer for this
    /// request) to read its body into, when the site asks for it.
    fileprivate func respond(
        _ connection: OpaquePointer, url: String, method: String, body: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> MHD_Result {
        var request = HTTPRequest(
            method: method, path: String(url.prefix { $0 != "?" }),
            authorization: library.lookupConnectionValue(connection, .HEADER_KIND, "Authorization").map { String(cString: $0) })
        for name in HTTPRequest.headerNames {
            if let value = library.lookupConnectionValue(connection, .HEADER_KIND, name) { request.headers[name.lowercased()] = String(cString: value) }
        }
        switch handle(request) {
        case .answer(let response):
            return send(response, on: connection)
        case .readBody(let limit, let answer):
            // libmicrohttpd takes an answer only before the body or after all of it: the length is checked first.
            guard let length = request[header: "Content-Length"].flatMap({ Int($0) }) else {
                return send(.text(411, "length required: send the body with a Content-Length (at most \(limit) bytes)", headers: [("Connection", "close")]), on: connection)
            }
            guard length <= limit else { return send(Self.bodyTooLarge(limit), on: connection) }
            guard let body else { return .NO }
            body.pointee = Unmanaged.passRetained(PendingBody(limit: limit, answer: answer)).toOpaque()
            return .YES
        }
    }

    /// The next piece of a body being read (`size` bytes at `data`), or its end (`size` 0): then the site's answer.
    /// More than the limit (which the Content-Length checked first rules out) closes the connection, nothing kept.
    fileprivate func read(_ body: PendingBody, data: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>?, on connection: OpaquePointer) -> MHD_Result {
        let count = size?.pointee ?? 0
        size?.pointee = 0
        guard count > 0 else { return send(body.answer(body.bytes), on: connection) }
        guard body.bytes.count + count <= body.limit, let data else { return .NO }
        body.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: count))
        return .YES
    }

    /// The answer to a body longer than the site takes, refused before it is read.
    private static func bodyTooLarge(_ limit: Int) -> HTTPResponse {
        .text(413, "payload too large: this request takes at most \(limit) bytes of body", headers: [("Connection", "close")])
    }

    /// The answer to a live page past `streamLimit`.
    private static let tooManyStreams = HTTPResponse.text(
        503, "service unavailable: \(streamLimit) live pages are open, the most this listener serves at once; "
            + "close one and reload (/metrics and /api/status are still answered)",
        headers: [("Retry-After", "10"), ("Connection", "close")])

    private func send(_ answer: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let response: OpaquePointer?
        switch answer.body {
        case .bytes(let bytes):
            response = bytes.withUnsafeBytes { buffer in
                library.createResponseFromBuffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .stream(let stream):
            switch admit(stream) {
            case .admitted(let box):
                response = library.createResponseFromCallback(UInt64.max, 4096, streamReader, Unmanaged.passRetained(box).toOpaque(), streamFreed)
            case .full:
                load.pageRefused()
                return send(Self.tooManyStreams, on: connection)
            case .stopping: return .NO
            }
        }
        guard let response else { return .NO }
        defer { library.destroyResponse(response) }
        for header in answer.headers { _ = library.addResponseHeader(response, header.name, header.value) }
        return library.queueResponse(connection, UInt32(answer.status), response)
    }

    private enum Admission {
        case admitted(StreamBox)
        case full
        case stopping
    }

    /// Counts `stream` among the open ones, unless `streamLimit` are open or the server stops (then it is finished).
    private func admit(_ stream: any ResponseStream) -> Admission {
        let box = StreamBox(stream, server: self)
        let admission = streams.withLock { state -> Admission in
            if state.stopping { return .stopping }
            if state.open.count >= Self.streamLimit { return .full }
            state.open[ObjectIdentifier(box)] = stream
            load.pagesOpen(state.open.count)
            return .admitted(box)
        }
        if case .admitted = admission { return admission }
        stream.finish()
        return admission
    }

    /// A connection opened or closed, as libmicrohttpd tells it.
    fileprivate func connection(_ connection: OpaquePointer, opened: Bool) {
        let id = identity(of: connection)
        guard opened else {
            connections.closed(id)
            return
        }
        let fd = tagrouter_mhd_connection_fd(library.getConnectionInfo, connection)
        guard fd >= 0 else { return }
        connections.opened(id, fd: fd, address: Self.host(tagrouter_mhd_client_address(library.getConnectionInfo, connection)))
    }

    /// The numeric host of a client on another machine (`192.168.1.20`); nil for loopback (or unknown).
    private static func host(_ address: UnsafePointer<sockaddr>?) -> String? {
        guard let address else { return nil }
        let length: Int
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let isLoopback = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) >> 24 == 127 }
            if isLoopback { return nil }
            length = MemoryLayout<sockaddr_in>.size
        case AF_INET6:
            length = MemoryLayout<sockaddr_in6>.size
        default:
            return nil
        }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, socklen_t(length), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { return nil }
        let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text == "::1" || text.hasPrefix("::ffff:127.") ? nil : text
    }

    fileprivate func forget(_ box: StreamBox) {
        streams.withLock { state in
            state.open.removeValue(forKey: ObjectIdentifier(box))
            load.pagesOpen(state.open.count)
        }
    }
}

/// The `MHD_Daemon`, handed between the starting task and the stopping one
/// (libmicrohttpd's calls on it are thread-safe).
private struct RunningDaemon: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// A request body being read for the site, held in libmicrohttpd's per-request pointer
/// (retained) from the request's headers until it ends; used on the connection's thread only.
private final class PendingBody {
    let limit: Int
    let answer: @Sendable ([UInt8]) -> HTTPResponse
    var bytes: [UInt8] = []

    init(limit: Int, answer: @escaping @Sendable ([UInt8]) -> HTTPResponse) {
        self.limit = limit
        self.answer = answer
    }
}

/// A stream as libmicrohttpd holds it: retained until the response is freed.
private final class StreamBox: Sendable {
    let stream: any ResponseStream
    let server: HTTPServer

    init(_ stream: any ResponseStream, server: HTTPServer) {
        self.stream = stream
        self.server = server
    }
}

/// A connection as `ConnectionGuard` knows it: its address in memory, unique while it is open.
private func identity(of connection: OpaquePointer) -> UInt {
    UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
}

/// libmicrohttpd calls this once the request's headers are in: it is answered at once unless the site
/// reads its body (then again for each piece of it, and once at its end). A body the site does not
/// ask for is not read, and the connection is closed after the answer.
private let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, data, size, body in
    guard let context, let connection else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    if let pending = body?.pointee {
        return server.read(Unmanaged<PendingBody>.fromOpaque(pending).takeUnretainedValue(), data: data, size: size, on: connection)
    }
    server.connections.requestStarted(identity(of: connection))
    return server.respond(connection, url: url.map { String(cString: $0) } ?? "/", method: method.map { String(cString: $0) } ?? "GET", body: body)
}

private let connectionNotifier: MHD_NotifyConnectionCallback = { context, connection, _, code in
    guard let context, let connection else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    server.connection(connection, opened: code == .CONNECTION_NOTIFY_STARTED)
}

private let requestCompleted: MHD_RequestCompletedCallback = { context, connection, body, _ in
    if let pending = body?.pointee {
        Unmanaged<PendingBody>.fromOpaque(pending).release()
        body?.pointee = nil
    }
    guard let context, let connection else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    server.connections.requestEnded(identity(of: connection))
}

private let streamReader: MHD_ContentReaderCallback = { context, _, buffer, size in
    guard let context, let buffer else { return -2 }
    let box = Unmanaged<StreamBox>.fromOpaque(context).takeUnretainedValue()
    guard let count = box.stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size)) else { return -1 }  // end of stream
    return count
}

private let streamFreed: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    let box = Unmanaged<StreamBox>.fromOpaque(context).takeRetainedValue()
    box.stream.finish()
    box.server.forget(box)
}
