import NDEF
import TagCore
import TagKit

/// Writes an NDEF message to an identified tag — after the tag's own records
/// with `append` — verifies it (the driver reads it back), and locks or
/// password-protects it when asked; a protected tag is authenticated to first
/// (TagPasswordAccess). `tagrouter write --direct` and the daemon's reader threads share it.
public enum TagWriting {
    /// Writes `order` to `tag` through `driver`, or says why not: the refusal's
    /// reason tells a message too large, a read-only tag, a tag that left.
    public static func write(
        _ order: TagWriteOrder, to tag: TagInfo, with driver: any NDEFTagDriver, reader: String
    ) throws(TagJobRefusal) -> TagWriteReport {
        do {
            var message = order.message
            var records = try count(order.message, what: "the message to write")
            let wasProtected = try TagPasswordAccess.prepare(order, driver: driver, tagType: tag.type)
            if order.append, let existing = try driver.read().message, !existing.isEmpty {
                let old: [NDEFRecord]
                do {
                    old = try NDEFMessage(bytes: existing).records.filter { $0.tnf != .empty }
                } catch {
                    throw TagJobRefusal(.damaged, "the message on the tag is damaged (\(error)); write without --append to replace it")
                }
                let new = try NDEFMessage(bytes: order.message).records
                message = NDEFMessage(records: old + new).encoded()
                records = old.count + new.count
            }
            try driver.write(message: message)
            try TagPasswordAccess.finish(order, driver: driver)
            if order.lock { try driver.lock() }
            return TagWriteReport(
                reader: reader, tag: tag, records: records, bytes: message.count, verified: true, locked: order.lock,
                protected: wasProtected || order.protect)
        } catch let error as TagDriverError {
            throw refusal(error)
        } catch let error as TagJobRefusal {
            throw error
        } catch {
            throw TagJobRefusal(.badRequest, "the message to write is not NDEF: \(error)")
        }
    }

    private static func count(_ message: [UInt8], what: String) throws(TagJobRefusal) -> Int {
        do {
            return try NDEFMessage(bytes: message).records.count
        } catch {
            throw TagJobRefusal(.badRequest, "\(what) is not NDEF: \(error)")
        }
    }

    /// A driver's failure as the refusal a caller can act on.
    static func refusal(_ error: TagDriverError) -> TagJobRefusal {
        switch error {
        case .transport(.tagRemoved):
            return TagJobRefusal(.tagLeft, "the tag left the field before the write was done and verified; hold it still and write again")
        case .doesNotFit: return TagJobRefusal(.tooLarge, error.description)
        case .readOnly: return TagJobRefusal(.readOnly, error.description)
        case .passwordRequired: return TagJobRefusal(.passwordProtected, error.description)
        case .passwordRefused, .packMismatch: return TagJobRefusal(.wrongPassword, error.description)
        case .unsupported, .notFormatted: return TagJobRefusal(.unsupported, error.description)
        case .malformed: return TagJobRefusal(.damaged, error.description)
        case .transport, .verifyFailed, .unexpectedAnswer: return TagJobRefusal(.failed, error.description)
        }
    }
}
