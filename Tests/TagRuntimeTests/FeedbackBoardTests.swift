import Synchronization
import TagCore
import TagRuntime
import Testing

/// The board that carries a tap's outcome to whatever shows it for a reader.
@Suite struct FeedbackBoardTests {
    /// What one sink received.
    final class Received: Sendable {
        let moments = Mutex<[ReaderFeedback.Moment]>([])
        var sink: @Sendable (ReaderFeedback.Moment) -> Void { { moment in self.moments.withLock { $0.append(moment) } } }
        var all: [ReaderFeedback.Moment] { moments.withLock { $0 } }
    }

    @Test func theLightsAndTheSoundOfOneReaderBothGetItsMoments() {
        let board = FeedbackBoard()
        let lights = Received(), sound = Received(), other = Received()
        let lightsID = board.register(reader: "door", lights.sink)
        _ = board.register(reader: "door", sound.sink)
        _ = board.register(reader: "gate", other.sink)
        board.post(.success, reader: "door")
        board.unregister(reader: "door", id: lightsID)
        board.post(.failure, reader: "door")
        board.post(.noMatch, reader: "nobody")
        #expect(lights.all == [.success])
        #expect(sound.all == [.success, .failure])
        #expect(other.all.isEmpty)
    }
}
