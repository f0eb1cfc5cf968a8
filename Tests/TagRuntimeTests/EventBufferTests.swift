import Testing

import TagCore
import TagRuntime

@Suite struct EventBufferTests {
    @Test func aLiveSourceDropsTheOldestAndCountsIt() async {
        let buffer = EventBuffer(capacity: 2)
        let events = (0..<5).map { _ in TagEvent(kind: .tagArrived, reader: "door") }
        for event in events { buffer.offer(event) }
        #expect(buffer.dropped == 3)
        buffer.finish()
        #expect(await buffer.next()?.event.id == events[3].id)
        #expect(await buffer.next()?.canWait == false)
        #expect(await buffer.next() == nil)
    }

    /// Issue 18: a reader's event offered while an input's events fill the buffer
    /// is routed next, and drops none of them (each holds the input's acknowledgement).
    @Test func aLiveEventGoesAheadOfWaitingOnesAndDropsNone() async {
        let buffer = EventBuffer(capacity: 2)
        let sent = (0..<2).map { _ in TagEvent(kind: .tagArrived, reader: "mqtt-node") }
        for event in sent { #expect(await buffer.send(event)) }
        let tap = TagEvent(kind: .tagArrived, reader: "door")
        buffer.offer(tap)
        #expect(buffer.dropped == 0)
        buffer.finish()
        #expect(await buffer.next()?.event.id == tap.id)
        #expect(await buffer.next()?.event.id == sent[0].id)
        #expect(await buffer.next()?.event.id == sent[1].id)
    }

    @Test func finishedWakesAWaiter() async {
        let buffer = EventBuffer(capacity: 1)
        async let finished: Void = buffer.finished()
        buffer.finish()
        await finished
        #expect(await buffer.send(TagEvent(kind: .tagArrived, reader: "door")) == false, "refused after finish")
    }
}
