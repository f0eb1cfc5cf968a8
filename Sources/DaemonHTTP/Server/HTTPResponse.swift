/// What a handler answers: a whole body, or a stream (server-sent events)
/// that the connection's thread reads from until it ends.
struct HTTPResponse: Sendable {
    enum Body: Sendable {
        case bytes([UInt8])
        case stream(any ResponseStream)
    }

    var status: Int
    var headers: [(name: String, value: String)]
    var body: Body

    init(status: Int = 200, contentType: String, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.status = status
        self.headers = [("Content-Type", contentType), ("Cache-Control", "no-store")] + headers
        self.body = .bytes(body)
    }

    init(contentType: String, stream: any ResponseStream) {
        status = 200
        headers = [("Content-Type", contentType), ("Cache-Control", "no-store")]
        body = .stream(stream)
    }

    /// A short plain-text answer (`401 unauthorized: …`).
    static func text(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", headers: headers, body: Array((text + "\n").utf8))
    }
}

/// A response body produced while it is sent, on the connection's own thread.
protocol ResponseStream: Sendable {
    /// Fills `buffer` with the next bytes and returns how many; may block until
    /// there are some. Returns nil when the stream has ended.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int?
    /// The connection is gone (the client left, or the server stops).
    func finish()
}
