import TagRouter

/// The `webhook` action: an HTTP request per event, on libcurl (a dedicated
/// thread per action, TLS verified), signed with HMAC-SHA256 when asked, with
/// the event id as `Idempotency-Key` so a retried delivery can be recognised.
public struct WebhookPlugin: ActionPlugin {
    public static let name = "webhook"

    public static let actionSpec = OptionSpec("send an HTTP request for each event", scalarOption: "url", [
        Option("url", .template, required: true, "where to send it (`http:` or `https:`)"),
        Option("method", .choice(["POST", "PUT", "PATCH", "GET", "DELETE"]), default: "POST", "the HTTP method"),
        Option("headers", .map(.template), "more headers, each value templated (`{{env.NAME}}` reads a secret from the environment at load)"),
        Option("header_files", .map(.secretFile), "headers whose value is the trimmed contents of a file (secrets kept out of the config)"),
        Option("bearer_token_file", .secretFile, "sends `Authorization: Bearer <contents of the file>` (a Home Assistant long-lived token)"),
        Option("body", .template, "the request body; default: the event JSON"),
        Option("content_type", .string, default: "application/json", "the Content-Type header"),
        Option("timeout", .duration, default: "10s", "for the whole request; then it counts as failed and is retried"),
        Option("insecure", .bool, default: "false", "true turns TLS certificate and host name verification off"),
        Option("hmac", .section(OptionSpec("sign the body with HMAC-SHA256", [
            Option("secret_file", .secretFile, required: true, "a file holding the shared secret"),
            Option("header", .string, default: "X-Signature-256", "the header carrying `sha256=<hex>`"),
        ])), "sign the body; the receiver recomputes HMAC-SHA256 over the raw body"),
    ])

    public init(section: ConfigValue, context: PluginContext) throws(ConfigErrors) {}

    public func makeAction(_ options: ConfigValue, route: String) throws(ConfigErrors) -> any Action {
        guard let url = options.optionalTemplate("url") else { throw options.error("url", "give the URL to send to") }
        if let problem = WebhookURLShape.problem(url) { throw options.error("url", problem) }
        if case .failure(let unavailable) = Curl.shared { throw options.error(nil, unavailable.description) }
        var errors = ConfigErrors()
        var headers = options.entries("headers").compactMap { entry in entry.value.templateValue.map { (entry.key, $0) } }
        for (name, file) in options.entries("header_files") {
            guard let contents = file.fileContents else {
                errors.append(contentsOf: file.error(nil, "cannot read the file"))
                continue
            }
            headers.append((name, Template(secret: contents)))
        }
        if options.has("bearer_token_file") {
            if let token = options.child("bearer_token_file")?.fileContents {
                headers.append(("Authorization", Template(secret: "Bearer " + token)))
            } else {
                errors.append(contentsOf: options.error("bearer_token_file", "cannot read the file"))
            }
        }
        var signer: HMACSigner?
        if options.has("hmac") {
            let hmac = options.section("hmac")
            if let secret = hmac.child("secret_file")?.fileContents, !secret.isEmpty {
                signer = HMACSigner(key: Array(secret.utf8), header: hmac.string("header"))
            } else {
                errors.append(contentsOf: hmac.error("secret_file", "the secret file is empty or unreadable"))
            }
        }
        if !errors.isEmpty { throw errors }
        return WebhookAction(
            url: url, method: options.string("method"), headers: headers, body: options.optionalTemplate("body"),
            contentType: options.string("content_type"), timeout: options.duration("timeout"),
            verifyTLS: !options.bool("insecure"), signer: signer, route: route, client: CurlThread(),
            check: RenderedRequestCheck(url: url))
    }
}
