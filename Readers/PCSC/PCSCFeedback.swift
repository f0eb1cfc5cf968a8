import Dispatch
import Lifecycle
import NDEF
import OrderedJSON
import Synchronization
import SystemKit
import TagCore
import TagReader

/// Shows a PC/SC reader's feedback on a thread of its own, with its own pcscd
/// context: `post` queues a moment and returns at once, so neither the reader's
/// scan nor the router ever waits on LEDs, a buzzer or the host-timed pauses of
/// a blink. At most `depth` moments wait (the live lane of a `BoundedQueue`); an
/// older one gives way to a newer.
/// A driver that refuses escape commands (libccid without `ifdDriverOptions`
/// bit 0) is reported once, and the card-present pseudo-APDUs stand in.
final class PCSCFeedback: Sendable {
    let readerName: String
    let model: ReaderFeedback.Model
    private let config: ReaderConfig
    private let queue = BoundedQueue<ReaderFeedback.Moment>(capacity: PCSCFeedback.depth)
    /// Cuts a host-timed pause short when stopping.
    private let pauseCut = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let ended = DispatchSemaphore(value: 0)
    static let depth = 4

    /// Nil when the reader gets no commands (`model: none`, or a name no model matches).
    init?(config: ReaderConfig, readerName: String) {
        let model = FeedbackCommand.resolve(config.feedback.model, readerName: readerName)
        guard model != .none, model != .auto else { return nil }
        self.config = config
        self.readerName = readerName
        self.model = model
        DedicatedThread.start(name: "feedback \(config.name)") { [self] in
            run()
            ended.signal()
        }
    }

    /// Queues `moment` for the reader; never blocks.
    func post(_ moment: ReaderFeedback.Moment) {
        guard config.feedback.patterns[moment]?.isVisible == true || (moment == .arrival && !config.beepOnDetect) else { return }
        queue.push(moment)
    }

    /// Ends the thread after the command under way and waits for it.
    func stop() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        queue.finish()
        pauseCut.signal()
        ended.wait()
    }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    private func run() {
        var context: PCSCContext?
        var escape = FeedbackCommand.usesEscape(model)
        var silenced = config.beepOnDetect
        while !isStopping {
            // Returns at once when moments wait, and when `stop` finishes the queue.
            for moment in queue.take(waiting: .seconds(60)).elements where !isStopping {
                if context == nil { context = try? PCSCContext() }
                guard let connection = context else { break }
                var commands: [FeedbackCommand] = []
                if !silenced && moment == .arrival { commands += FeedbackCommand.silenceDetection(on: model, escape: escape) }
                if let pattern = config.feedback.patterns[moment] { commands += FeedbackCommand.show(pattern, on: model, escape: escape) }
                switch send(commands, context: connection) {
                case .done:
                    if moment == .arrival { silenced = true }
                case .escapeRefused(let error):
                    escape = false
                    Log.warning(
                        "the reader's driver refuses escape commands; LED and buzzer go through pseudo-APDUs while a card is connected",
                        JSONObject([
                            "reader": .string(config.name), "pcsc_reader": .string(readerName), "error": .string(error),
                            "fix": "set bit 0 of ifdDriverOptions (e.g. 0x0001) in libccid's Info.plist (/usr/lib/pcsc/drivers/ifd-ccid.bundle/Contents/Info.plist) and restart pcscd",
                        ]))
                    var fallback: [FeedbackCommand] = []
                    if !silenced && moment == .arrival { fallback += FeedbackCommand.silenceDetection(on: model, escape: false) }
                    if let pattern = config.feedback.patterns[moment] { fallback += FeedbackCommand.show(pattern, on: model, escape: false) }
                    if case .done = send(fallback, context: connection), moment == .arrival { silenced = true }
                case .failed(let reason):
                    // pcscd may have restarted: the next moment opens a fresh context.
                    context = nil
                    Log.debug("reader feedback not shown", JSONObject(["reader": .string(config.name), "moment": .string(moment.rawValue), "reason": .string(reason)]))
                }
            }
        }
    }

    private enum Sent {
        case done
        case escapeRefused(String)
        case failed(String)
    }

    /// Sends `commands` over a connection of their own: shared with the card for
    /// pseudo-APDUs, direct to the reader when only escape commands go.
    private func send(_ commands: [FeedbackCommand], context: PCSCContext) -> Sent {
        guard !commands.isEmpty else { return .done }
        let needsCard = commands.contains { if case .apdu = $0 { true } else { false } }
        let card: PCSCCard
        do {
            card = try context.connect(reader: readerName, direct: !needsCard)
        } catch {
            return .failed(error.description)
        }
        for command in commands {
            switch command {
            case .apdu(let apdu):
                guard let answer = try? card.transmit(apdu), answer.count >= 2, answer[answer.count - 2] == 0x90 else {
                    return .failed("the reader did not accept \(Hex.string(apdu))")
                }
            case .escape(let bytes):
                do {
                    _ = try card.control(FeedbackCommand.escapeControlCode, bytes)
                } catch {
                    return .escapeRefused(error.description)
                }
            case .pause(let duration):
                _ = pauseCut.wait(timeout: .now() + .milliseconds(Int(duration.milliseconds)))
                if isStopping { return .done }
            }
        }
        return .done
    }
}
