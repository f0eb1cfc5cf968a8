import OrderedJSON
import SystemKit
import TagCore

/// How a reader of any kind says it waits for its device (missing, not admitted by a device
/// sandbox, held by another process, not readable): each new reason is logged once as a warning
/// ("…; waiting for it"). Until the device has opened once, a reason met again at the next attempt
/// is also emitted as `reader.waiting`, so `status` shows the reader `waiting` and why; a device that
/// only needed a moment (a lock being released, a chip slow to answer) is not reported. After the
/// device opened, a loss has been said by `reader.disconnected`; reasons it does not come back are logged only.
public struct DeviceWaitReport: Sendable {
    private let reader: String
    private let device: String
    /// The reason of the latest attempt, and whether it was emitted.
    private var said: (reason: String, emitted: Bool)?
    private var hasOpened = false

    /// For the reader named `reader` on `device` (as the log names it).
    public init(reader: String, device: String) {
        self.reader = reader
        self.device = device
    }

    /// The device is not usable now. `reason` says why in a few words (the event's `message` and
    /// `status`); `detail`, what the reason depends on (added to both, not compared: a new detail
    /// alone says nothing new); `hint`, what to do, follows in the log line only.
    public mutating func waiting(_ reason: String, detail: String? = nil, hint: String = "", emit: (TagEvent) -> Void) {
        guard let said, said.reason == reason else {
            said = (reason, false)
            var fields = JSONObject(["reader": .string(reader), "device": .string(device)])
            if let detail { fields["detail"] = .string(detail) }
            Log.warning(reason + "; waiting for it" + hint, fields)
            return
        }
        guard !said.emitted, !hasOpened else { return }
        self.said = (reason, true)
        emit(TagEvent(kind: .readerWaiting, reader: reader, message: reason + (detail.map { " (\($0))" } ?? "")))
    }

    /// The device opened: a reason met after this is new again, and no longer an event.
    public mutating func opened() {
        said = nil
        hasOpened = true
    }
}
