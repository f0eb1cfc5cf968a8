import OrderedJSON

/// A request to a running reader to reach one tag: read it, or write an NDEF
/// message to it, read it back and verify. The reader's thread takes it between
/// polls; the tag it works on is not routed as a tap (docs/control.md "write").
public struct TagJob: Sendable, Equatable {
    /// What to do with the tag.
    public enum Work: Sendable, Equatable {
        /// Read the tag and answer with its `tag.arrived` event.
        case read
        /// Write `order` to the tag.
        case write(TagWriteOrder)
    }

    public var work: Work
    /// How long to wait for a tag; past it the answer is `no_tag`.
    public var timeout: Duration
    /// Whether a tag lying on the reader already counts; false: only the next tag placed.
    public var takesPresent: Bool
    /// Who asked (`control pid 4242`, `mqtt`), for the log.
    public var origin: String

    public init(_ work: Work, timeout: Duration, takesPresent: Bool, origin: String) {
        self.work = work
        self.timeout = timeout
        self.takesPresent = takesPresent
        self.origin = origin
    }
}

extension TagJob {
    /// The longest wait a request may ask for.
    public static let maximumTimeout: Duration = .seconds(600)

    /// A request's wait in seconds (`field` names it in the refusal): 30 when
    /// absent, else a number more than 0 and at most `maximum`.
    public static func timeout(_ value: JSONValue?, field: String, maximum: Duration = maximumTimeout) throws(TagJobRefusal) -> Duration {
        let seconds: Double
        switch value {
        case nil: return .seconds(30)
        case .int(let whole)?: seconds = Double(whole)
        case .double(let fraction)?: seconds = fraction
        default: throw TagJobRefusal(.badRequest, "\(field) must be a number of seconds, not \(value?.serialized() ?? "")")
        }
        let limit = maximum.components.seconds
        guard seconds > 0, seconds <= Double(limit) else {
            throw TagJobRefusal(.badRequest, "\(field) must be more than 0 and at most \(limit) seconds, not \(seconds)")
        }
        return .milliseconds(Int64(seconds * 1000))
    }
}

/// What to write: an encoded NDEF message, after the tag's own records with
/// `append`, and whether to make the tag read-only or password-protected afterwards.
public struct TagWriteOrder: Sendable, Equatable {
    /// The NDEF message's bytes.
    public var message: [UInt8]
    public var append: Bool
    /// Make the tag permanently read-only after writing. Irreversible.
    public var lock: Bool
    /// Make later writes need `password` (NTAG 213/215/216; reading stays open).
    public var protect: Bool
    /// The password a protected tag is written with, and that `protect` sets.
    public var password: TagPassword?

    public init(message: [UInt8], append: Bool = false, lock: Bool = false, protect: Bool = false, password: TagPassword? = nil) {
        self.message = message
        self.append = append
        self.lock = lock
        self.protect = protect
        self.password = password
    }
}

/// The daemon's readers as something that reads and writes tags: the control
/// socket and the MQTT `write` command hand jobs to it. An implementation answers
/// every job exactly once — with the outcome, or a refusal saying why.
public protocol TagJobRunner: Sendable {
    /// Hands `job` to `reader` (its name or its device; nil: the only reader) and calls
    /// `answer` once, on any thread, when it is done or refused. The handle withdraws
    /// the job while no tag has been reached for it (the asker went away).
    @discardableResult
    func submit(_ job: TagJob, reader: String?, answer: @escaping @Sendable (TagJobResult) -> Void) -> TagJobHandle
}

/// Withdraws a submitted job that still waits for a tag; it is then answered `cancelled`.
public struct TagJobHandle: Sendable {
    private let withdraw: @Sendable () -> Void

    public init(cancel: @escaping @Sendable () -> Void) { withdraw = cancel }

    public func cancel() { withdraw() }
}
