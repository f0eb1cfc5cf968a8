import TagCore
import TagRuntime

/// The built-in `feedback` action, for routes that want their own: shows one
/// of the reader's `readers[].feedback` patterns (`- feedback: success`) on the
/// reader the event came from, or on `reader`, and plays that moment's sound. It only queues the pattern for
/// the reader's feedback thread, so it never waits on the reader.
public struct FeedbackPlugin: ActionPlugin {
    public static let name = "feedback"
    public static let actionSpec = OptionSpec("show a feedback pattern on a reader's LEDs and buzzer, and play its `feedback.sound` file", scalarOption: "pattern", [
        Option("pattern", .choice(ReaderFeedback.Moment.allCases.map(\.rawValue)), required: true, "which of the reader's `readers[].feedback` moments to show (and play)"),
        Option("reader", .string, "the reader to show it on; default: the one the event came from"),
        Option("spool", .bool, default: "false", "write each event ahead to disk under `state_dir` first (off: a pattern shown late helps nobody)"),
    ])

    private let board: FeedbackBoard

    public init(section: ConfigValue, context: PluginContext) throws(ConfigErrors) { board = context.feedback }

    public func makeAction(_ options: ConfigValue, route: String) throws(ConfigErrors) -> any Action {
        FeedbackAction(moment: options.choice("pattern"), reader: options.optionalString("reader"), board: board)
    }
}

/// One `feedback` action.
struct FeedbackAction: Action {
    let moment: ReaderFeedback.Moment
    let reader: String?
    let board: FeedbackBoard

    func perform(_ delivery: Delivery) async throws(ActionError) {
        board.post(moment, reader: reader ?? delivery.event.reader)
    }

    func describe(_ delivery: Delivery) -> String {
        "show \(moment.rawValue) on reader \(reader ?? delivery.event.reader)"
    }
}
