import CCurl
import Glibc

/// One libcurl easy handle, used by one thread for one blocking transfer at a
/// time; keeping it keeps the connection to the server alive between requests.
final class CurlEasy {
    private let curl: Curl
    private let handle: Curl.Handle

    init?(_ curl: Curl) {
        guard let handle = curl.easyInit() else { return nil }
        self.curl = curl
        self.handle = handle
    }

    deinit { curl.easyCleanup(handle) }

    /// Sends `request` and waits for the whole answer, the timeout, or `abort`.
    func perform(_ request: HTTPRequest, abort: TransferAbort) -> Result<HTTPResponse, HTTPTransportError> {
        if abort.isRequested { return .failure(Self.cancelled(request)) }
        for header in request.headers where (header.name + header.value).utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
            return .failure(HTTPTransportError(kind: .invalidRequest, message: "header '\(header.name)' contains a line break or NUL; refusing to send it"))
        }
        curl.easyReset(handle)
        var headerList: UnsafeMutablePointer<curl_slist>?
        for header in request.headers { headerList = curl.slistAppend(headerList, "\(header.name): \(header.value)") }
        // No "Expect: 100-continue" round trip before larger bodies.
        headerList = curl.slistAppend(headerList, "Expect:")
        defer { curl.slistFreeAll(headerList) }

        let sink = ResponseSink()
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        // POSTFIELDS must not be NULL even for an empty body (NULL means "use the read callback").
        let body = request.body.isEmpty ? [0] : request.body
        let code = withExtendedLifetime((sink, abort)) {
            body.withUnsafeBufferPointer { body in
                errorText.withUnsafeMutableBufferPointer { errorBuffer in
                    configure(request, headers: headerList, body: UnsafeBufferPointer(rebasing: body.prefix(request.body.count)), sink: sink, errorBuffer: errorBuffer.baseAddress)
                    watch(abort)
                    return curl.easyPerform(handle)
                }
            }
        }
        if code == CURLE_ABORTED_BY_CALLBACK { return .failure(Self.cancelled(request)) }
        guard code == CURLE_OK else {
            let detail = errorText.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            let message = detail.isEmpty ? curl.easyStrerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)" : detail
            return .failure(HTTPTransportError(kind: Self.kind(of: code), message: "\(request.method) \(request.displayURL): \(message)"))
        }
        return .success(HTTPResponse(status: curl.info(handle, CURLINFO_RESPONSE_CODE) ?? 0, headers: sink.headers, body: sink.body))
    }

    private func configure(
        _ request: HTTPRequest, headers: UnsafeMutablePointer<curl_slist>?, body: UnsafeBufferPointer<UInt8>, sink: ResponseSink,
        errorBuffer: UnsafeMutablePointer<CChar>?
    ) {
        curl.set(handle, CURLOPT_NOSIGNAL, 1)
        curl.set(handle, CURLOPT_ERRORBUFFER, pointer: errorBuffer)
        curl.set(handle, CURLOPT_URL, pointer: request.url)
        curl.set(handle, CURLOPT_PROTOCOLS_STR, pointer: "http,https")
        curl.set(handle, CURLOPT_CUSTOMREQUEST, pointer: request.method)
        if !body.isEmpty || !["GET", "DELETE"].contains(request.method) {
            curl.set(handle, CURLOPT_POSTFIELDSIZE_LARGE, body.count)
            curl.set(handle, CURLOPT_POSTFIELDS, pointer: body.baseAddress)
        }
        curl.set(handle, CURLOPT_HTTPHEADER, pointer: headers)
        let milliseconds = request.timeout.components.seconds * 1000 + request.timeout.components.attoseconds / 1_000_000_000_000_000
        curl.set(handle, CURLOPT_TIMEOUT_MS, Int(max(1, milliseconds)))
        curl.set(handle, CURLOPT_SSL_VERIFYPEER, request.verifyTLS ? 1 : 0)
        curl.set(handle, CURLOPT_SSL_VERIFYHOST, request.verifyTLS ? 2 : 0)
        curl.set(handle, CURLOPT_USERAGENT, pointer: "tagrouter")
        let context = UnsafeRawPointer(Unmanaged.passUnretained(sink).toOpaque())
        curl.set(handle, CURLOPT_WRITEFUNCTION, pointer: unsafeBitCast(receiveBody, to: UnsafeRawPointer.self))
        curl.set(handle, CURLOPT_WRITEDATA, pointer: context)
        curl.set(handle, CURLOPT_HEADERFUNCTION, pointer: unsafeBitCast(receiveHeader, to: UnsafeRawPointer.self))
        curl.set(handle, CURLOPT_HEADERDATA, pointer: context)
    }

    /// Has curl ask `abort` during the transfer (about once a second while it waits for the server).
    private func watch(_ abort: TransferAbort) {
        curl.set(handle, CURLOPT_NOPROGRESS, 0)
        curl.set(handle, CURLOPT_XFERINFOFUNCTION, pointer: unsafeBitCast(checkAbort, to: UnsafeRawPointer.self))
        curl.set(handle, CURLOPT_XFERINFODATA, pointer: UnsafeRawPointer(Unmanaged.passUnretained(abort).toOpaque()))
    }

    private static func cancelled(_ request: HTTPRequest) -> HTTPTransportError {
        HTTPTransportError(kind: .cancelled, message: "\(request.method) \(request.displayURL): stopped because the daemon is shutting down")
    }

    private static func kind(of code: CURLcode) -> HTTPTransportError.Kind {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .timedOut
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_FUNCTION_ARGUMENT: return .invalidRequest
        default: return .connection
        }
    }
}

/// Collects the answer while `curl_easy_perform` runs (same thread).
private final class ResponseSink {
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []

    func receiveHeader(_ line: String) {
        if line.hasPrefix("HTTP/") {
            headers.removeAll()  // a new response (after 100 Continue or a redirect)
        } else if let colon = line.firstIndex(of: ":") {
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            headers.append((line[..<colon].lowercased(), value))
        }
    }
}

private let receiveBody: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, context in
    guard let data, let context else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    let room = max(0, HTTPResponse.bodyLimit - sink.body.count)
    sink.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: min(room, size * count)))
    return size * count
}

private let receiveHeader: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, context in
    guard let data, let context else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    sink.receiveHeader(String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self))
    return size * count
}

/// Curl's progress callback: a non-zero answer makes the transfer end with CURLE_ABORTED_BY_CALLBACK.
private let checkAbort: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32 = { context, _, _, _, _ in
    guard let context else { return 0 }
    return Unmanaged<TransferAbort>.fromOpaque(context).takeUnretainedValue().isRequested ? 1 : 0
}
