/// What `Spool.recover` makes of the files it finds in a spool folder, decided
/// without touching the disk (so it is fuzzed on its own): which batches wait,
/// which are done, and which files are damaged or impossible and go aside.
///
/// Nothing on disk is trusted blindly. A batch name is 20 digits from 1 to
/// `maximumSequence`, and its entries must fit below that bound and behind the
/// batch before it. `delivered` is trusted only as the daemon writes it (20
/// digits and a newline) and only where the daemon can have written it: inside
/// the oldest batch still on disk (a batch all done is deleted before `delivered`
/// moves past it) or before it. Anything else is quarantined — never fatal, and
/// no entry is skipped because of it: a `delivered` that goes aside delivers
/// every batch again (at least once).
struct SpoolBookkeeping: Equatable {
    /// Sequences go no higher: a million events a second for 146,000 years, and
    /// far enough from `UInt64.max` that no sum of them overflows.
    static let maximumSequence: UInt64 = 1 << 62

    /// A batch file: the sequences of its first and last entries.
    struct Batch: Equatable {
        let first: UInt64
        let last: UInt64
    }

    /// A file that is not what the daemon writes, and why.
    struct Quarantined: Equatable {
        let name: String
        let reason: String
    }

    /// Every entry through this sequence is done.
    var done: UInt64 = 0
    /// The batches holding entries not yet done, oldest first.
    var batches: [Batch] = []
    /// The entries not yet done, as runs of sequences without a gap.
    var waiting: [ClosedRange<UInt64>] = []
    /// Where the next batch starts: behind every batch seen.
    var nextSequence: UInt64 = 1
    /// Batches all done and leftovers of unfinished writes: deleted.
    var deleted: [String] = []
    var quarantined: [Quarantined] = []
    /// `delivered` stays (it is trusted and entries are still waiting).
    var keepsDelivered = false

    static let deliveredName = "delivered"

    /// Why a batch that cannot be read is set aside.
    static let unreadableBatch = "unreadable: not lines of spooled events in a regular file that only the daemon's user can write"

    /// Decides about the files `names` of one spool folder. `delivered`: the
    /// bytes of the file `delivered` (nil when there is none, empty when it
    /// cannot be read as a regular file); `entries`: how many entries the batch
    /// file of that name holds, nil when it cannot be read.
    init(names: [String], delivered: [UInt8]?, entries: (String) -> Int?) {
        var candidates: [(name: String, batch: Batch)] = []
        for name in names.sorted() {
            if name.hasPrefix(".") && name.hasSuffix(".tmp") {
                deleted.append(name)
                continue
            }
            guard name.hasSuffix(".json") else { continue }
            let digits = name.dropLast(5)
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { continue }
            guard digits.utf8.count == 20, let first = UInt64(digits), first >= 1, first <= Self.maximumSequence else {
                quarantine(name, "a batch is named by the sequence of its first entry, 20 digits from 1 to \(Self.maximumSequence)")
                continue
            }
            guard let count = entries(name), count > 0 else {
                quarantine(name, Self.unreadableBatch)
                nextSequence = max(nextSequence, first + 1)  // a new batch never takes the name of one set aside
                continue
            }
            guard UInt64(count) <= Self.maximumSequence - first + 1 else {
                quarantine(name, "its \(count) entries run past the highest sequence, \(Self.maximumSequence)")
                continue
            }
            let batch = Batch(first: first, last: first + UInt64(count) - 1)
            if let previous = candidates.last, batch.first <= previous.batch.last {
                quarantine(name, "its entries \(batch.first)...\(batch.last) overlap those of \(previous.name)")
                continue
            }
            nextSequence = max(nextSequence, batch.last + 1)
            candidates.append((name, batch))
        }
        trustDelivered(delivered, oldest: candidates.first)
        for (name, batch) in candidates {
            guard batch.last > done else {
                deleted.append(name)
                continue
            }
            batches.append(batch)
            let from = max(batch.first, done + 1)
            if let previous = waiting.last, previous.upperBound + 1 == from {
                waiting[waiting.count - 1] = previous.lowerBound...batch.last
            } else {
                waiting.append(from...batch.last)
            }
        }
        nextSequence = max(nextSequence, done + 1)
        keepsDelivered = keepsDelivered && !batches.isEmpty
    }

    /// Sets `done` from `delivered` where it is what the daemon writes, at a place it can have written it.
    private mutating func trustDelivered(_ bytes: [UInt8]?, oldest: (name: String, batch: Batch)?) {
        guard let bytes else { return }
        let digits = bytes.dropLast()
        guard bytes.count == 21, bytes.last == UInt8(ascii: "\n"),
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let sequence = UInt64(String(decoding: digits, as: UTF8.self)), sequence <= Self.maximumSequence
        else {
            quarantine(
                Self.deliveredName,
                "not 20 digits and a newline in a file only the daemon's user can write, as the daemon writes it; every entry is delivered again")
            return
        }
        guard let oldest else {
            deleted.append(Self.deliveredName)  // nothing waits: nothing to keep track of
            return
        }
        guard sequence < oldest.batch.last else {
            quarantine(
                Self.deliveredName,
                "says entries through \(sequence) are done, yet \(oldest.name) (entries \(oldest.batch.first)...\(oldest.batch.last)) is still here "
                    + "(a batch all done is deleted first); every entry is delivered again")
            return
        }
        done = sequence
        keepsDelivered = true
    }

    private mutating func quarantine(_ name: String, _ reason: String) {
        quarantined.append(Quarantined(name: name, reason: reason))
    }
}
