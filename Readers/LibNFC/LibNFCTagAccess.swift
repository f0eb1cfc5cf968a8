import CNFC
import Glibc
import Lifecycle
import OrderedJSON
import SystemKit
import TagCore
import TagKit
import TagReader

/// One-shot access to a tag on a libnfc reader (`TagAccess` through `LibNFCDriver`).
enum LibNFCTagAccess {
    static func reachTag<T>(
        device connstring: String, timeout: Duration, ifBusy: ReaderConfig.BusyPolicy, _ body: (TagInfo, any NDEFTagDriver) throws -> T
    ) throws -> T {
        let deadline = ContinuousClock.now + timeout
        let device = try open(connstring, until: deadline, ifBusy: ifBusy)
        do {
            try device.initiatorInit()
            try device.setProperty(NP_INFINITE_SELECT, false, "disable infinite select")
            while ContinuousClock.now < deadline {
                guard let target = try device.autoPoll(pollCount: 1, period: 1).target,
                    let tag = TagInspector.identify(target, on: device)
                else { continue }
                if let lost = device.lost { throw lost }
                guard let driver = tag.driver else { throw TagAccessError.unsupported(type: tag.info.type) }
                return try body(tag.info, driver)
            }
        } catch let error as NFCError {
            throw TagAccessError.failed("reader failed: \(error)")
        }
        throw TagAccessError.noTag(device: connstring, timeout: timeout)
    }

    /// Whether another process (a running daemon) holds `connstring` now; false when the lock cannot be checked.
    static func isHeldElsewhere(_ connstring: String) -> Bool {
        do {
            _ = try DeviceLock.acquire(connstring)  // released again at once
            return false
        } catch {
            if case .inUse = error { return true }
            return false
        }
    }

    /// Opens the device, waiting (with the reader backoff, logged once) while another process holds it if asked to.
    private static func open(_ connstring: String, until deadline: ContinuousClock.Instant, ifBusy: ReaderConfig.BusyPolicy) throws -> NFCDevice {
        guard let context = NFCContext.shared else { throw TagAccessError.noReader(device: connstring) }
        var backoff = Backoff.readerReopen
        var reported = false
        while true {
            switch context.open(connstring) {
            case .success(let device):
                return device
            case .failure(.notOpened):
                throw TagAccessError.noReader(device: connstring)
            case .failure(.busy(let holder)):
                let wait = backoff.next()
                guard ifBusy == .wait, ContinuousClock.now + wait < deadline else { throw TagAccessError.busy(holder.description) }
                if !reported {
                    Log.warning("\(holder); waiting for it", JSONObject(["device": .string(connstring)]))
                    reported = true
                }
                usleep(UInt32(clamping: wait.milliseconds * 1000))
            }
        }
    }
}
