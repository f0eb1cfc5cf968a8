import Foundation
import SystemKit
import Testing

/// A signal is caught from the moment its stream exists: a SIGTERM sent while the daemon starts is never lost.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct SignalsTests {
    @Test func aSignalSentTheMomentTheStreamExistsIsDelivered() async {
        for _ in 0..<20 {
            var signals = Signals.stream([SIGUSR2]).makeAsyncIterator()
            kill(getpid(), SIGUSR2)
            #expect(await signals.next() == SIGUSR2)
        }
    }

    @Test func eachSignalArrivesAsItIsSent() async {
        var signals = Signals.stream([SIGUSR1, SIGUSR2]).makeAsyncIterator()
        for number in [SIGUSR1, SIGUSR2, SIGUSR1] {
            kill(getpid(), number)
            #expect(await signals.next() == number)
        }
    }
}
