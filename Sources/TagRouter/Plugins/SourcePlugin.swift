import Lifecycle
import TagCore
import TagRuntime

/// A kind of event source that is not a local reader — an events file, later
/// an MQTT subscription — listed once in the registry beside the action
/// plugins: an action plugin turned around. Each entry of `inputs:` names one
/// kind with its options (`- events: /var/lib/tagrouter/replay.jsonl`); the
/// router does not know which kinds exist.
///
/// An implementer guarantees what a `Service` does: `run(into:)` puts events
/// into the buffer until its task is cancelled (or its input ends), then
/// releases what it holds. A source that can wait (a file, a broker that
/// redelivers) uses `EventBuffer.send`; a live one `offer`. One that holds
/// something to hand on at a stop (messages a broker counts as delivered) says
/// `finishesGracefully` and ends by itself at the graceful shutdown.
public protocol SourcePlugin: Sendable {
    /// The key users write in `inputs: [- <name>: <options>]`.
    static var name: String { get }
    /// The options of one input; its `scalarOption` declares the short form.
    static var spec: OptionSpec { get }
    /// Builds the input from its validated options; throws the problems the spec could not catch.
    init(options: ConfigValue, context: PluginContext) throws(ConfigErrors)
    /// Puts events into `buffer` until cancelled or the input ends.
    func run(into buffer: EventBuffer) async throws
    /// True for an input whose `run(into:)` ends by itself at the daemon's graceful
    /// shutdown (`GracefulShutdown.wait()`), having sent on what it holds; false
    /// (the default): the input is cancelled when the graceful shutdown begins.
    static var finishesGracefully: Bool { get }
    /// What `check-config` should warn about in this input's options (none by default).
    var warnings: [ConfigError] { get }
    /// What the input has counted so far, for `status` and the metrics (none by default).
    var counts: [InputReport.Count] { get }
}

extension SourcePlugin {
    public static var finishesGracefully: Bool { false }
    public var warnings: [ConfigError] { [] }
    public var counts: [InputReport.Count] { [] }
}

/// One entry of `inputs:`, built and ready to run.
public struct ConfiguredInput: Sendable {
    /// The source plugin's name (`events`).
    public var kind: String
    /// Where the entry is in the config (`inputs[0]`).
    public var path: String
    public var source: any SourcePlugin

    public init(kind: String, path: String, source: any SourcePlugin) {
        self.kind = kind
        self.path = path
        self.source = source
    }

    /// The input as a service that fills `buffer`.
    public func service(into buffer: EventBuffer) -> any Service { InputService(source: source, buffer: buffer) }
}

/// A source plugin bound to the buffer it fills.
private struct InputService: Service {
    let source: any SourcePlugin
    let buffer: EventBuffer

    func run() async throws {
        let (source, buffer) = (source, buffer)
        guard type(of: source).finishesGracefully else {
            return try await GracefulShutdown.cancelling { try await source.run(into: buffer) }
        }
        try await source.run(into: buffer)
    }
}
