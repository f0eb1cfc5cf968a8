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
