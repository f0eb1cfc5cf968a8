import TagCore
import Testing

@testable import TagReader

/// The scan model fed by hand: a script of "what was in the field at t ms" and
/// the exact decisions it must produce.
@Suite struct ScanModelTests {
    let a = TagUID("04a224b2c35e80")!
    let b = TagUID("04-11-22-33-44-55-66")!
    let start = ContinuousClock.now

    /// Feeds `script` (time in ms, tags present) and collects every decision.
    func run(_ model: inout ScanModel, _ script: [(Int, [TagUID])]) -> [ScanModel.Decision] {
        script.flatMap { milliseconds, present in model.observe(present, at: start + .milliseconds(milliseconds)) }
    }

    func model(cooldown: Int = 0, exitDelay: Int = 0, ignoreOnConnect: Bool = false) -> ScanModel {
        ScanModel(cooldown: .milliseconds(cooldown), exitDelay: .milliseconds(exitDelay), ignoreOnConnect: ignoreOnConnect)
    }

    @Test func heldTagArrivesOnceAndIsRemovedOnce() {
        var scan = model()
        let decisions = run(&scan, [(0, []), (100, [a]), (200, [a]), (300, [a]), (400, []), (500, [])])
        #expect(decisions == [.arrive(a), .remove(a, dwell: .milliseconds(200))])
        #expect(!scan.isHolding)
    }

    @Test func anAdoptedTagDoesNotArriveAgainAndItsRemovalIsReported() {
        var scan = model()
        scan.connected()
        scan.adopt([a], at: start)
        let decisions = run(&scan, [(0, [a, b]), (100, [a]), (200, [])])
        #expect(decisions == [.arrive(b), .remove(b, dwell: .zero), .remove(a, dwell: .milliseconds(100))])
    }

    @Test func exitDelayBridgesABriefContactLoss() {
        var scan = model(exitDelay: 250)
        let decisions = run(&scan, [(0, [a]), (100, []), (200, [a]), (300, []), (400, []), (549, []), (550, [])])
        #expect(decisions == [.arrive(a), .remove(a, dwell: .milliseconds(200))])
    }

    @Test func holdingLastsThroughTheExitDelay() {
        var scan = model(exitDelay: 250)
        _ = run(&scan, [(0, [a]), (100, [])])
        #expect(scan.isHolding)
        _ = run(&scan, [(400, [])])
        #expect(!scan.isHolding)
    }

    @Test func cooldownSilencesAQuickReturnAndItsRemoval() {
        var scan = model(cooldown: 1000)
        let decisions = run(&scan, [(0, [a]), (100, []), (500, [a]), (600, []), (1700, [a])])
        // Last seen at 0 ms; back at 500 ms: silenced, and so is its removal.
        // Back at 1700 ms, past the cooldown counted from its reported stay: reported.
        #expect(decisions == [.arrive(a), .remove(a, dwell: .zero), .arrive(a)])
    }

    @Test func cooldownIsPerUID() {
        var scan = model(cooldown: 1000)
        let decisions = run(&scan, [(0, [a]), (100, []), (200, [b])])
        #expect(decisions == [.arrive(a), .remove(a, dwell: .zero), .arrive(b)])
    }

    @Test func ignoreOnConnectSilencesWhatWasAlreadyThere() {
        var scan = model(ignoreOnConnect: true)
        scan.connected()
        let decisions = run(&scan, [(0, [a]), (100, [a]), (200, []), (300, [a]), (400, [a, b])])
        #expect(decisions == [.arrive(a), .arrive(b)])
    }

    @Test func connectingWithoutIgnoreReportsWhatIsThere() {
        var scan = model()
        scan.connected()
        #expect(run(&scan, [(0, [a])]) == [.arrive(a)])
    }

    @Test func twoTagsEachGetTheirOwnEvents() {
        var scan = model()
        let decisions = run(&scan, [(0, [a]), (100, [a, b]), (200, [b]), (300, [])])
        #expect(decisions == [.arrive(a), .arrive(b), .remove(a, dwell: .milliseconds(100)), .remove(b, dwell: .milliseconds(100))])
    }

    @Test func replacingATagRemovesTheOldBeforeTheNewArrives() {
        var scan = model()
        let decisions = run(&scan, [(0, [a]), (100, [b]), (200, [])])
        #expect(decisions == [.arrive(a), .remove(a, dwell: .zero), .arrive(b), .remove(b, dwell: .zero)])
    }

    @Test func losingTheReaderRemovesReportedTagsOnly() {
        var scan = model(ignoreOnConnect: true)
        scan.connected()
        _ = run(&scan, [(0, [a]), (100, [a, b]), (300, [a, b])])
        #expect(scan.disconnected() == [.remove(b, dwell: .milliseconds(200))])
        #expect(!scan.isHolding)
    }
}

/// Tap and hold: the exact decisions for each way a tag is placed and lifted,
/// with `hold: 1000ms` (and `exit_delay: 250ms`, `cooldown: 0`).
@Suite struct TapAndHoldTests {
    static let a = TagUID("04a224b2c35e80")!
    static let b = TagUID("04-11-22-33-44-55-66")!

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        var ignoreOnConnect = false
        /// (time in ms, tags present) fed in order.
        let script: [(Int, [TagUID])]
        let expected: [ScanModel.Decision]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "tap", script: [(0, [a]), (300, [a]), (400, []), (650, [])], expected: [.arrive(a), .tap(a), .remove(a, dwell: .milliseconds(300))]),
        Case(name: "hold", script: [(0, [a]), (999, [a]), (1000, [a]), (1500, [a])], expected: [.arrive(a), .hold(a)]),
        Case(
            name: "hold then lift", script: [(0, [a]), (1000, [a]), (1200, [a]), (1300, []), (1550, [])],
            expected: [.arrive(a), .hold(a), .remove(a, dwell: .milliseconds(1200))]),
        Case(
            name: "re-placed within exit_delay is one presence, held from its first arrival",
            script: [(0, [a]), (200, []), (400, [a]), (1000, [a]), (1100, []), (1350, [])],
            expected: [.arrive(a), .hold(a), .remove(a, dwell: .milliseconds(1000))]),
        Case(
            name: "re-placed after exit_delay is two taps", script: [(0, [a]), (100, []), (350, []), (400, [a]), (500, []), (750, [])],
            expected: [.arrive(a), .tap(a), .remove(a, dwell: .zero), .arrive(a), .tap(a), .remove(a, dwell: .zero)]),
        Case(
            name: "missing when the hold falls due: no hold, a tap", script: [(0, [a]), (900, [a]), (1000, []), (1250, [])],
            expected: [.arrive(a), .tap(a), .remove(a, dwell: .milliseconds(900))]),
        Case(
            name: "two tags: one held, one tapped", script: [(0, [a]), (500, [a, b]), (1000, [a, b]), (1200, [a]), (1450, [a]), (1600, []), (1850, [])],
            expected: [.arrive(a), .arrive(b), .hold(a), .tap(b), .remove(b, dwell: .milliseconds(500)), .remove(a, dwell: .milliseconds(1450))]),
        Case(
            name: "two tags held at once: holds in UID order", script: [(0, [a, b]), (1000, [a, b])],
            expected: [.arrive(a), .arrive(b), .hold(b), .hold(a)]),
        Case(
            name: "ignore_on_connect: a silenced tag is neither held nor tapped", ignoreOnConnect: true,
            script: [(0, [a]), (1000, [a]), (1100, []), (1350, []), (1400, [b]), (2400, [b])],
            expected: [.arrive(b), .hold(b)]),
    ]

    @Test(arguments: cases)
    func exactDecisions(_ test: Case) {
        var scan = ScanModel(cooldown: .zero, exitDelay: .milliseconds(250), ignoreOnConnect: test.ignoreOnConnect, hold: .milliseconds(1000))
        scan.connected()
        let start = ContinuousClock.now
        let decisions = test.script.flatMap { milliseconds, present in scan.observe(present, at: start + .milliseconds(milliseconds)) }
        #expect(decisions == test.expected)
    }

    @Test func withoutHoldNoTapOrHoldIsDecided() {
        var scan = ScanModel(cooldown: .zero, exitDelay: .zero, ignoreOnConnect: false)
        let start = ContinuousClock.now
        let decisions = [(0, [Self.a]), (2000, [Self.a]), (2100, [])].flatMap { scan.observe($1, at: start + .milliseconds($0)) }
        #expect(decisions == [.arrive(Self.a), .remove(Self.a, dwell: .milliseconds(2000))])
        #expect(scan.nextHoldDue == nil)
    }

    @Test func theHoldFallsDueAtArrivalPlusHoldUntilItFires() {
        var scan = ScanModel(cooldown: .zero, exitDelay: .zero, ignoreOnConnect: false, hold: .milliseconds(1500))
        let start = ContinuousClock.now
        _ = scan.observe([Self.a], at: start)
        #expect(scan.nextHoldDue == start + .milliseconds(1500))
        _ = scan.observe([Self.a], at: start + .milliseconds(1500))
        #expect(scan.nextHoldDue == nil)
    }

    @Test func losingTheReaderIsNoTap() {
        var scan = ScanModel(cooldown: .zero, exitDelay: .zero, ignoreOnConnect: false, hold: .milliseconds(1000))
        _ = scan.observe([Self.a], at: .now)
        #expect(scan.disconnected() == [.remove(Self.a, dwell: .zero)])
    }
}
