import ChildProcess
import TagRouter

/// The `open` action: opens the tag's URI the way a phone does in background
/// tag reading — only for allowed schemes, through the handler configured for
/// the scheme or `xdg-open` (which follows the desktop's
/// `x-scheme-handler/<scheme>` registration), optionally after the user
/// accepts a desktop notification.
public struct OpenURLPlugin: ActionPlugin {
    public static let name = "open"

    public static let sectionSpec: OptionSpec? = OptionSpec("what `open` may open, and with what", [
        Option("allow_schemes", .list(.string), default: "[http, https, mailto, tel, sms]", "the only schemes opened (any case); everything else is refused, logged and counted"),
        Option("handler", .list(.template), default: "[xdg-open, \"{{uri}}\"]", "the program and arguments that open a URI; `{{uri}}` is the URI being opened"),
        Option("handlers", .map(.list(.template)), "a program per scheme, e.g. `spotify: [spotify, --uri, \"{{uri}}\"]`"),
        Option("confirm", .bool, default: "false", "ask first with a desktop notification (default for every `open` action)"),
        Option("confirm_timeout", .duration, default: "30s", "how long the notification waits for \"Open\"; no answer means no"),
        Option("notifier", .list(.string), default: "[notify-send]", "the notify-send program (libnotify-bin) and leading arguments"),
    ])

    public static let actionSpec = OptionSpec("open the tag's URI in the app registered for its scheme", scalarOption: "uri", [
        Option("uri", .template, default: "\"{{uri}}\"", "what to open"),
        Option("confirm", .bool, "ask first; default: `open.confirm`"),
        Option("confirm_timeout", .duration, "default: `open.confirm_timeout`"),
    ])

    private let policy: SchemePolicy
    private let handlers: Handlers
    private let confirm: Bool
    private let confirmTimeout: Duration
    private let notifier: [String]
    private let refusals: RefusalCounter

    public init(section: ConfigValue, context: PluginContext) throws(ConfigErrors) {
        policy = SchemePolicy(allowing: section.strings("allow_schemes"))
        var byScheme: [String: [Template]] = [:]
        var errors = ConfigErrors()
        for (scheme, value) in section.entries("handlers") {
            let argv = value.templateList ?? []
            if argv.isEmpty { errors.append(contentsOf: value.error(nil, "the handler is empty: give the program as the first element")) }
            byScheme[scheme.lowercased()] = argv
        }
        let fallback = section.templates("handler")
        if fallback.isEmpty { errors.append(contentsOf: section.error("handler", "the handler is empty: give the program as the first element")) }
        if !errors.isEmpty { throw errors }
        handlers = Handlers(fallback: fallback, byScheme: byScheme)
        confirm = section.bool("confirm")
        confirmTimeout = section.duration("confirm_timeout")
        notifier = section.strings("notifier")
        refusals = RefusalCounter()
    }

    public func makeAction(_ options: ConfigValue, route: String) throws(ConfigErrors) -> any Action {
        // An action's own `confirm` and `confirm_timeout` default to the section's.
        let confirmation = (options.optionalBool("confirm") ?? confirm)
            ? Confirmation(notifier: notifier, timeout: options.optionalDuration("confirm_timeout") ?? confirmTimeout) : nil
        return OpenAction(
            uri: options.template("uri"), route: route, policy: policy, handlers: handlers,
            confirmation: confirmation, refusals: refusals)
    }

    /// URIs refused since this config was loaded (bad or disallowed scheme).
    public var refusedCount: Int { refusals.count }
}

/// The argument vector that opens a URI of each scheme.
struct Handlers: Sendable {
    let fallback: [Template]
    let byScheme: [String: [Template]]

    func argv(scheme: String) -> [Template] { byScheme[scheme] ?? fallback }
}
