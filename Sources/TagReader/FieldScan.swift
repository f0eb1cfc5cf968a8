import TagCore

/// The scan loop every reader kind shares, over its `FieldTransport`: each `step` is one look at
/// the field fed to the scan model, whose decisions become events — an arriving tag is selected
/// and read (NDEF, the originality signature when asked) or handed to a job waiting for it; a
/// hold, tap or removal carries its arrival's tag. Lives on the reader's thread for as long as
/// the device stays open.
package struct FieldScan<Transport: FieldTransport> {
    package let config: ReaderConfig
    /// The device's side; the reader reaches it for what only its kind knows (a chip reset).
    package var transport: Transport
    /// The read and write jobs waiting for this reader's tags.
    private let jobs: TagJobQueue?
    private var model: ScanModel
    /// The reported arrivals, for the events after them.
    private var presence: PresenceEvents

    /// `adopting`: the arrivals of tags the previous reader of this device reported and did not
    /// remove (see `ScanModel.adopt`); their later events keep those arrivals' identity.
    package init(config: ReaderConfig, transport: Transport, jobs: TagJobQueue? = nil, adopting present: [TagEvent] = []) {
        self.config = config
        self.transport = transport
        self.jobs = jobs
        model = ScanModel(config)
        if transport.seesTagsLyingThere { model.connected() }
        model.adopt(present.compactMap(\.tag?.uid), at: .now)
        presence = PresenceEvents(reader: config.name, adopting: present)
    }

    /// One look at the field; emits the events it leads to as they happen. Throws when the
    /// device failed (the reader retries or reopens it).
    package mutating func step(emit: (TagEvent) -> Void) throws(Transport.Failure) {
        guard let look = try transport.observe(for: model) else { return }
        for decision in model.observe(look.targets.map(\.uid), at: .now) {
            if case .arrive(let uid) = decision {
                guard let target = look.targets.first(where: { $0.uid == uid }) else { continue }
                arrive(target, sensed: look.sensed, emit: emit)
            } else if let event = presence.event(for: decision) {
                emit(marked(event))
            }
        }
        if transport.reachesLyingTags, let jobs, jobs.wantsPresentTag, let target = look.targets.first, let job = jobs.claim(arriving: false) {
            job.finish(look.targets.count == 1 ? perform(job.job, on: target) : Self.severalTags(look.targets.count))
        }
        if let lost = transport.lost { throw lost }
    }

    /// The device was lost: the removal of every reported tag.
    package mutating func readerLost() -> [TagEvent] {
        model.disconnected().compactMap { presence.event(for: $0).map(marked) }
    }

    /// A tag the model reports arriving: handed to a job waiting for one, else read and reported.
    private mutating func arrive(_ target: Transport.Target, sensed: ContinuousClock.Instant, emit: (TagEvent) -> Void) {
        if let job = jobs?.claim(arriving: true) {
            presence.claim(target.uid)
            job.finish(perform(job.job, on: target))
        } else {
            emit(presence.arrived(read(target).arrivedEvent(reader: config.name, sensed: sensed)))
        }
    }

    /// Selects `target` and reads it; a tag that leaves or a device that fails on the way yields a
    /// readout with `ndefError` saying so.
    private mutating func read(_ target: Transport.Target) -> TagReadout {
        switch transport.select(target) {
        case .identified(let tag): return TagInspector.read(tag, signature: config.readsSignature)
        case .gone(let reason): return TagReadout(info: target.info, ndefError: reason ?? TagReadout.removedDuringRead)
        case .unreachable: return TagReadout(info: target.info)
        }
    }

    /// Does `job` on `target`.
    private mutating func perform(_ job: TagJob, on target: Transport.Target) -> TagJobResult {
        let refusal: TagJobRefusal
        switch transport.select(target) {
        case .identified(let tag): return TagJobWork.perform(job, on: tag, reader: config.name)
        case .gone(let reason): refusal = TagJobRefusal(.tagLeft, reason.map { "the tag could not be reached: \($0)" } ?? "the tag left the field before it could be reached")
        case .unreachable(let reason): refusal = TagJobRefusal(.unsupported, reason)
        }
        let result = TagJobResult.refused(refusal)
        TagJobWork.log(result, job: job, tag: nil, reader: config.name)
        return result
    }

    static func severalTags(_ count: Int) -> TagJobResult {
        .refused(TagJobRefusal(.failed, "\(count) tags lie on the reader; leave only the one to read or write"))
    }

    /// `event` marked as following from a removal the reader did not see, when it sees none.
    private func marked(_ event: TagEvent) -> TagEvent {
        guard !transport.seesRemovals, event.kind == .tagRemoved || event.kind == .tagTapped else { return event }
        var event = event
        event.removalAssumed = true
        return event
    }
}
