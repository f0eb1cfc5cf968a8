import CMicroHTTPD
import Synchronization
import TagCore

/// libmicrohttpd (loaded by `init`) serving one listening socket: one thread per connection,
/// each request answered by `handle` on that thread. Streams get their own
/// blocking reads; `stop` ends them and joins every thread.
final class HTTPServer: Sendable {
    /// The most connections served at once (a page's event stream holds one for as long as it is open).
    static let connectionLimit: UInt32 = 32
    /// Seconds an idle keep-alive connection is kept.
    static let idleTimeout: UInt32 = 120

    private let library: MicroHTTPD
    private let handle: @Sendable (HTTPRequest) -> HTTPResponse
    private let daemon = Mutex<RunningDaemon?>(nil)
    private let streams = Mutex<(open: [ObjectIdentifier: any ResponseStream], stopping: Bool)>(([:], false))

    /// Loads libmicrohttpd, if no server did yet; fails when it is not installed.
    init(handle: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws(HTTPError) {
        switch MicroHTTPD.shared {
        case .success(let library): self.library = library
        case .failure(let unavailable): throw HTTPError("cannot serve HTTP: \(unavailable)")
        }
        self.handle = handle
    }

    /// Starts serving `socket`, which the server then owns (and closes on `stop`).
    func start(_ socket: ListeningSocket) throws(HTTPError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let started = tagrouter_mhd_start(library.startDaemon, socket.fd, Self.connectionLimit, Self.idleTimeout, accessHandler, context) else {
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

    fileprivate func respond(_ connection: OpaquePointer, url: String, method: String) -> MHD_Result {
        let request = HTTPRequest(
            method: method, path: String(url.prefix { $0 != "?" }),
            authorization: library.lookupConnectionValue(connection, .HEADER_KIND, "Authorization").map { String(cString: $0) })
        let answer = handle(request)
        guard let response = makeResponse(answer.body) else { return .NO }
        defer { library.destroyResponse(response) }
        for header in answer.headers { _ = library.addResponseHeader(response, header.name, header.value) }
        return library.queueResponse(connection, UInt32(answer.status), response)
    }

    private func makeResponse(_ body: HTTPResponse.Body) -> OpaquePointer? {
        switch body {
        case .bytes(let bytes):
            return bytes.withUnsafeBytes { buffer in
                library.createResponseFromBuffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .stream(let stream):
            let box = StreamBox(stream, server: self)
            let admitted = streams.withLock { state in
                guard !state.stopping else { return false }
                state.open[ObjectIdentifier(box)] = stream
                return true
            }
            guard admitted else { return nil }
            return library.createResponseFromCallback(UInt64.max, 4096, streamReader, Unmanaged.passRetained(box).toOpaque(), streamFreed)
        }
    }

    fileprivate func forget(_ box: StreamBox) {
        streams.withLock { _ = $0.open.removeValue(forKey: ObjectIdentifier(box)) }
    }
}

/// The `MHD_Daemon`, handed between the starting task and the stopping one
/// (libmicrohttpd's calls on it are thread-safe).
private struct RunningDaemon: @unchecked Sendable {
    let pointer: OpaquePointer
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

/// libmicrohttpd calls this twice per request: first with the headers (answered
/// later), then to answer; a body sent with a GET is read and ignored.
private let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, _, uploadSize, requestContext in
    guard let context, let connection, let requestContext else { return .NO }
    if requestContext.pointee == nil {
        requestContext.pointee = UnsafeMutableRawPointer(bitPattern: 1)
        return .YES
    }
    if let uploadSize, uploadSize.pointee > 0 {
        uploadSize.pointee = 0
        return .YES
    }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    return server.respond(connection, url: url.map { String(cString: $0) } ?? "/", method: method.map { String(cString: $0) } ?? "GET")
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
