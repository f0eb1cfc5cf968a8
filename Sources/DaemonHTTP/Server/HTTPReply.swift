/// What the site makes of a request once its headers are in: the answer, or
/// "read the body first (at most `limit` bytes), then `answer` it". The server
/// reads a body only with a `Content-Length` of at most `limit` (else 411 or
/// 413, and the connection is closed), so a body never takes more memory.
enum HTTPReply: Sendable {
    case answer(HTTPResponse)
    case readBody(limit: Int, answer: @Sendable ([UInt8]) -> HTTPResponse)
}
