import Testing
@testable import MQTTPlugin

/// The backlog's ordering rules, without a broker.
struct OutboxTests {
    @Test func sendsInOrderWithinTheWindow() {
        var outbox = Outbox<String>()
        for item in ["a", "b", "c"] { _ = outbox.append(item) }
        let first = outbox.takeNext(window: 2)
        outbox.sent(first!, mid: 1)
        let second = outbox.takeNext(window: 2)
        outbox.sent(second!, mid: 2)
        #expect(outbox.takeNext(window: 2) == nil, "window full")
        #expect([first?.item, second?.item] == ["a", "b"])
        #expect(outbox.acknowledged(mid: 1)?.item == "a")
        #expect(outbox.takeNext(window: 2)?.item == "c")
    }

    @Test func inFlightGoesBackToTheFrontInOrderWhenTheConnectionEnds() {
        var outbox = Outbox<Int>()
        for item in 0..<5 { _ = outbox.append(item) }
        for mid in Int32(1)...3 { outbox.sent(outbox.takeNext(window: 10)!, mid: mid) }
        _ = outbox.acknowledged(mid: 2)
        outbox.connectionEnded()
        var order: [Int] = []
        while let entry = outbox.takeNext(window: 10) { order.append(entry.item) }
        #expect(order == [0, 2, 3, 4])
    }

    @Test func onlyQueuedItemsCanBeWithdrawn() {
        var outbox = Outbox<Int>()
        for item in 0..<3 { _ = outbox.append(item) }
        outbox.sent(outbox.takeNext(window: 10)!, mid: 7)
        let withdrawn = outbox.withdraw { _ in true }
        #expect(withdrawn.map(\.item) == [1, 2])
        #expect(outbox.count == 1)
        #expect(outbox.acknowledged(mid: 7)?.item == 0)
    }

    @Test func putBackKeepsTheOrder() {
        var outbox = Outbox<Int>()
        for item in 0..<3 { _ = outbox.append(item) }
        let entry = outbox.takeNext(window: 10)!
        outbox.putBack(entry)
        #expect(outbox.takeNext(window: 10)?.item == 0)
        #expect(outbox.takeNext(window: 10)?.item == 1)
    }
}
