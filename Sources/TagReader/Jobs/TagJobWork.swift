import OrderedJSON
import SystemKit
import TagCore

/// Does a claimed job on an identified tag, on the reader's thread (libnfc and
/// PC/SC alike), and logs it: a tag read or written for a job is not routed,
/// so the log line is where its arrival shows.
package enum TagJobWork {
    package static func perform(_ job: TagJob, on tag: TagInspector.Identified, reader: String) -> TagJobResult {
        let result: TagJobResult
        switch job.work {
        case .read:
            let readout = TagInspector.read(tag)
            result = readout.ndefError == TagReadout.removedDuringRead
                ? .refused(TagJobRefusal(.tagLeft, "the tag left the field before it was read; hold it still and read again"))
                : .read(readout.arrivedEvent(reader: reader))
        case .write(let order):
            if let driver = tag.driver {
                do {
                    result = .written(try TagWriting.write(order, to: tag.info, with: driver, reader: reader))
                } catch {
                    result = .refused(error)
                }
            } else {
                result = .refused(TagJobRefusal(.unsupported, "tagrouter cannot write \(tag.info.type) tags"))
            }
        }
        log(result, job: job, tag: tag.info, reader: reader)
        return result
    }

    /// "tag written" / "tag read" (info) or "tag write refused" (warning), with the tag and who asked.
    package static func log(_ result: TagJobResult, job: TagJob, tag: TagInfo?, reader: String) {
        var fields = JSONObject(["reader": .string(reader), "origin": .string(job.origin)])
        fields["uid"] = tag.map { .string($0.uid.hex) }
        fields["type"] = tag.map { .string($0.type) }
        let verb = job.work == .read ? "read" : "write"
        switch result {
        case .read:
            Log.info("tag read for a request; not routed", fields)
        case .written(let report):
            fields["bytes"] = .int(Int64(report.bytes))
            fields["locked"] = .bool(report.locked)
            Log.info("tag written; not routed", fields)
        case .refused(let refusal):
            fields["reason"] = .string(refusal.reason.rawValue)
            fields["error"] = .string(refusal.message)
            Log.warning("tag \(verb) refused", fields)
        }
    }
}
