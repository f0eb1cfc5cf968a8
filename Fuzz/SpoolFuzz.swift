// libFuzzer entry point for the spool's bookkeeping: what `Spool.recover` makes of a
// folder's file names, the batches' entry counts and the `delivered` file, decided by
// `SpoolBookkeeping` without I/O. Built by scripts/fuzz.sh with SpoolBookkeeping.swift
// in the same module (it is internal to TagRouter); not part of Package.swift.
//
// Input: the first line is `delivered`'s bytes (`-` for no such file; a newline is put
// back at its end), every further line a file name, `name:count` for a batch whose
// entries can be counted (a count that does not parse is an unreadable batch).

/// Decides about one folder, then checks what must hold whatever the disk says: nothing
/// traps, no entry of a kept batch is skipped, sequences stay in bounds and in order, and
/// every file is kept, deleted or set aside at most once.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let lines = UnsafeBufferPointer(start: data, count: size).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    guard let first = lines.first else { return 0 }
    let delivered: [UInt8]? = first.elementsEqual("-".utf8) ? nil : Array(first) + [UInt8(ascii: "\n")]
    var counts: [String: Int?] = [:]
    for line in lines.dropFirst() {
        let text = String(decoding: line, as: UTF8.self)
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        counts[String(parts[0])] = parts.count == 2 ? Int(parts[1]) : nil
    }
    let plan = SpoolBookkeeping(names: Array(counts.keys), delivered: delivered) { counts[$0] ?? nil }
    let maximum = SpoolBookkeeping.maximumSequence

    precondition(plan.done <= maximum, "done \(plan.done) past the bound")
    var previous: UInt64 = 0
    for batch in plan.batches {
        precondition(batch.first >= 1 && batch.first <= batch.last && batch.last <= maximum, "batch \(batch) out of bounds")
        precondition(batch.first > previous, "batches overlap or go backwards at \(batch)")
        precondition(batch.last > plan.done, "a batch all done is kept: \(batch)")
        precondition(plan.nextSequence > batch.last, "the next batch would reuse \(batch)")
        previous = batch.last
    }
    precondition(plan.nextSequence <= maximum + 1, "next sequence \(plan.nextSequence) past the bound")
    // Nothing skipped: every entry after `done` of every kept batch waits, and nothing else.
    let owed = plan.batches.reduce(UInt64(0)) { $0 + $1.last - max($1.first, plan.done + 1) + 1 }
    let waiting = plan.waiting.reduce(UInt64(0)) { $0 + $1.upperBound - $1.lowerBound + 1 }
    precondition(owed == waiting, "\(waiting) entries wait, \(owed) are owed")
    for (earlier, later) in zip(plan.waiting, plan.waiting.dropFirst()) {
        precondition(earlier.upperBound + 1 < later.lowerBound, "ranges \(earlier) and \(later) touch or overlap")
    }
    if plan.quarantined.contains(where: { $0.name == SpoolBookkeeping.deliveredName }) || delivered == nil {
        precondition(plan.done == 0 && !plan.keepsDelivered, "an untrusted delivered skipped entries through \(plan.done)")
    }
    let settled = plan.deleted + plan.quarantined.map(\.name)
    precondition(Set(settled).count == settled.count, "a file is deleted or set aside twice: \(settled)")
    return 0
}
