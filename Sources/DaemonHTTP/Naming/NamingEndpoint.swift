import OrderedJSON
import SystemKit
import TagCore
import TagRouter

/// The live page's "name this tag". `GET /api/naming` tells the page whether it
/// may name tags and hands it the request token; `POST /api/tags` with
/// `{"uid": "04a2…", "name": "door-key", "groups": "family"}` names the tag
/// through the daemon's `TagNamer`. The site has checked the bearer token (when
/// one is set) before either. A page of another site in the same browser cannot
/// write: POST only, `Content-Type: application/json` (which a cross-site form
/// cannot send, and which no CORS answer lets a script send), the request token
/// in `X-Tagrouter-CSRF` (readable only by a page of this listener), `Host` and
/// `Origin` checked (`OriginCheck`), at most `bodyLimit` bytes of body.
struct NamingEndpoint: Sendable {
    /// The most bytes a naming request's body may have.
    static let bodyLimit = 4096
    /// The paths it answers.
    static let paths = ["/api/naming", "/api/tags"]

    /// Names tags; nil when naming is off (`off` says why).
    private let namer: (any TagNamer)?
    private let off: String
    private let origin: OriginCheck
    /// The request token, made when the listener starts, and the same compared in constant time.
    private let requestToken: String
    private let expected: BearerToken

    /// `namer` nil: naming is off, for the reason `off`.
    init(namer: (any TagNamer)?, off: String, address: ListenAddress) {
        self.namer = namer
        self.off = off
        origin = OriginCheck(address: address)
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        requestToken = String((0..<32).map { _ in digits[Int.random(in: 0..<16, using: &generator)] })
        expected = BearerToken(requestToken)
    }

    /// `GET /api/naming`: `{"allowed": true, "request_token": …}`, or `{"allowed": false, "reason": …}`.
    func status(_ request: HTTPRequest) -> HTTPResponse {
        if let problem = origin.problem(request) { return .text(403, "forbidden: \(problem)") }
        let answer: JSONObject = namer == nil
            ? JSONObject(["allowed": false, "reason": .string(off)])
            : JSONObject(["allowed": true, "request_token": .string(requestToken)])
        return HTTPResponse(contentType: "application/json", body: Array(JSONValue.object(answer).serialized().utf8))
    }

    /// `POST /api/tags`: refused from its headers, or its body read and the tag named.
    func reply(to request: HTTPRequest) -> HTTPReply {
        guard request.method == "POST" else {
            return .answer(.text(405, "method not allowed: /api/tags takes POST with a JSON body naming a tag", headers: [("Allow", "POST")]))
        }
        guard let namer else { return .answer(.text(403, "forbidden: \(off)")) }
        if let problem = origin.problem(request) { return .answer(.text(403, "forbidden: \(problem)")) }
        guard let given = request[header: "X-Tagrouter-CSRF"], expected.matches(given) else {
            return .answer(.text(403, "forbidden: the request token (X-Tagrouter-CSRF, from GET /api/naming) is missing or wrong; reload the page"))
        }
        let type = request[header: "Content-Type"] ?? ""
        guard type.split(separator: ";").first?.trimmingWhitespace().lowercased() == "application/json" else {
            return .answer(.text(415, "unsupported media type: send the name as JSON (Content-Type: application/json), not '\(type)'"))
        }
        return .readBody(limit: Self.bodyLimit) { body in Self.name(body, by: namer) }
    }

    /// Reads `{"uid", "name", "groups"}` from `body` and has `namer` name the tag.
    private static func name(_ body: [UInt8], by namer: any TagNamer) -> HTTPResponse {
        let usage = #"expected {"uid": "04a224b2c35e80", "name": "door-key", "groups": "family, guests"} (groups optional)"#
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONValue.parse(bytes: body)
        } catch {
            return .text(400, "bad request: the body is not JSON (\(error)); \(usage)")
        }
        guard case .object = value, let uidText = value["uid"]?.stringValue, let name = value["name"]?.stringValue else {
            return .text(400, "bad request: \(usage)")
        }
        guard let uid = TagUID(uidText) else { return .text(400, "bad request: uid: \(TagUID.problem(uidText) ?? "'\(uidText)' is not a tag UID")") }
        let groups = value["groups"]
        guard groups == nil || groups?.stringValue != nil else { return .text(400, "bad request: groups: expected text (comma-separated)") }
        switch namer.name(uid, as: name, groups: groups?.stringValue ?? "") {
        case .done(let message):
            return HTTPResponse(contentType: "application/json", body: Array(JSONValue.object(JSONObject(["ok": true, "message": .string(message)])).serialized().utf8))
        case .refused(let message):
            return .text(422, message)
        case .failed(let message):
            return .text(500, message)
        }
    }
}
